# .bashrc
export ROCM_PATH=/opt/rocm
export PATH=$ROCM_PATH/bin:$PATH
export HIP_VISIBLE_DEVICES=0
export EDITOR=vim
