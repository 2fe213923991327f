export PATH=/usr/local/cuda/bin${PATH:+:${PATH}}
LD_LIBRARY_PATH+=":/opt/rocm/lib"
A=1; export A
[ -d x ] && B="$(cmd "q")`x`"
. "$HOME/.cargo/env"
