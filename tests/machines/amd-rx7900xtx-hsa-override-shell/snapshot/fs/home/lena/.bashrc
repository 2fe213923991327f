# ~/.bashrc: read by interactive bash shells (Ubuntu's /etc/skel copy, trimmed by its owner).
[ -z "$PS1" ] && return

HISTCONTROL=ignoreboth
HISTSIZE=1000
HISTFILESIZE=2000
shopt -s histappend checkwinsize

alias ll='ls -alF'
alias la='ls -A'

if [ -f ~/.bash_aliases ]; then
    . ~/.bash_aliases
fi
