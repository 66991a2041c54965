# tests/cli/zsh_complete.zsh: what zsh's completion system offers, as a user
# at a prompt gets it.  Run as `zsh -f zsh_complete.zsh FPATH_DIR LINE...`:
# an interactive zsh in a pseudo-terminal (zsh/zpty) with compinit and
# FPATH_DIR first in $fpath completes each LINE with a TAB; compadd is
# wrapped to print each candidate it adds.  Prints one line per LINE: the
# candidates, sorted, space-separated.  Every wait is bounded (exit 3 when
# the shell does not answer).
emulate -L zsh
zmodload zsh/zpty || { print -u2 "zsh_complete: zsh has no zsh/zpty module"; exit 2 }
local dir=$1 out chunk line
shift
local -i step=0

# Wait (bounded) until the pty printed mark<step>; its output so far is in $out.
await() {
	local -i i
	for (( i = 0; i < 1500; i++ )); do
		if zpty -r -t z chunk; then
			out+=$chunk
			[[ $out == *mark$step$'\r'* ]] && return 0
		else
			sleep 0.02
		fi
	done
	print -u2 "zsh_complete: no answer from the shell (step $step): ${(q)out[-500,-1]}"
	exit 3
}
# Wait (bounded) until zle is reading again after mark<step>: its
# zle-line-init hook prints "ready".  Until then the terminal may still be
# in canonical mode, where the kernel itself would take a typed ^U as
# "erase the line" and swallow the line and its TAB before zsh saw them.
await_ready() {
	local -i i
	for (( i = 0; i < 1500; i++ )); do
		[[ $out == *mark$step$'\r'*ready* ]] && return 0
		if zpty -r -t z chunk; then
			out+=$chunk
		else
			sleep 0.02
		fi
	done
	print -u2 "zsh_complete: zle never came back (step $step): ${(q)out[-500,-1]}"
	exit 3
}
# run CMD: run CMD in the pty's shell and wait until it has finished.
# (The marker is written lower-cased at run time: the echo of the typed
# command never contains it.)
run() {
	step+=1
	out=''
	zpty -w z "$1; print -r -- \${(L):-MARK}$step"
	await
}

zpty z zsh -f -i
run "PROMPT='' RPROMPT=''"
run "fpath=(${(q)dir} \$fpath); autoload -Uz compinit; compinit -u -D"
run 'compadd() {
	if (( ${@[(I)-[OAD]*]} )); then builtin compadd "$@"; return; fi
	local -a h; builtin compadd -A h "$@"; local x
	for x in $h; do print -r -- "${(L):-CAND}:$x"; done
	builtin compadd "$@"
}'
run 'zle-line-init() { print -rn -- ${(L):-READY} }; zle -N zle-line-init'
for line in "$@"; do
	await_ready
	# Type the line and TAB, then kill the line (^U) and run the marker.
	step+=1
	out=''
	zpty -w -n z "$line"$'\t'
	zpty -w -n z $'\C-u'
	zpty -w z "print -r -- \${(L):-MARK}$step"
	await
	print -r -- ${(j: :)${(ou)${(M)${(f)out//$'\r'/$'\n'}:#*cand:*}#*cand:}}
done
zpty -d z
