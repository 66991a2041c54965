# packaging/completions/srtctl.bash: bash completion for srtctl.
#
# Installed as /usr/share/bash-completion/completions/srtctl.  Everything
# is read from srtctl itself, so it never drifts from the binary: the verbs
# from `srtctl --help`, a verb's flags from `srtctl VERB --help`, the kinds
# from the usage line (`srtctl get recipes|runs|... [NAME]`), -o's formats
# from it too, and object names from the database (`srtctl get KIND`,
# honouring a --db given on the line).

# The words of `srtctl VERB --help` that are flags, one per line.
_srtctl_flags() {
	"${1:-srtctl}" "$2" --help 2>/dev/null | grep -oE -- '(^|[ [,])--?[a-zA-Z][a-zA-Z-]*' |
		sed -E 's/^[ [,]//' | sort -u
}

# The alternatives a|b|c after "usage: srtctl VERB" (kinds), or of -o.
_srtctl_usage_alternatives() { # SRTCTL VERB what(kinds|output)
	local usage
	usage=$("$1" "$2" --help 2>/dev/null | sed -n '1,3p')
	case $3 in
	kinds) sed -nE "1s/^usage: srtctl $2 ([a-z]+(\|[a-z]+)*) \[?[A-Z].*$/\1/p" <<<"$usage" | tr '|' '\n' ;;
	output) grep -oE -- '-o ([a-z]+\|)+[a-z]+' <<<"$usage" | head -n 1 | cut -c4- | tr '|' '\n' ;;
	esac
}

# Object names of KIND from the database (the first column of `srtctl get`).
_srtctl_names() { # SRTCTL KIND [--db PATH]
	local bin=$1 kind=$2
	shift 2
	"$bin" get "$kind" "$@" 2>/dev/null | awk 'NR > 1 && $1 != "" {print $1}'
}

# COMPREPLY from the lines on stdin.  Not mapfile: zsh's bashcompinit runs
# this file too (packaging/completions/_srtctl), and zsh has no mapfile.
_srtctl_reply() {
	local line
	COMPREPLY=()
	while IFS= read -r line; do
		COMPREPLY+=("$line")
	done
}

# Does flag $1 take a value (the next word)?
_srtctl_takes_value() {
	case $1 in
	-f | -o | --db | --url | --out | --output | --interval | --timeout | --since | --for | \
		--type | --reason | --limit | --run | --recipe | --job-name | --cluster-config | \
		--api-version) return 0 ;;
	esac
	return 1
}

_srtctl() {
	local cur prev bin=${COMP_WORDS[0]} verb="" i w
	local -a db=() args=()
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD - 1]}
	COMPREPLY=()

	# The verb, the --db given so far, and the positional words before cur.
	for ((i = 1; i < COMP_CWORD; i++)); do
		w=${COMP_WORDS[i]}
		if [[ -z $verb ]]; then
			[[ $w != -* ]] && verb=$w
			continue
		fi
		case $w in
		--db) db=(--db "${COMP_WORDS[i + 1]}") ;;
		--db=*) db=(--db "${w#--db=}") ;;
		esac
		if [[ $w == -* ]]; then
			[[ $w != *=* ]] && _srtctl_takes_value "$w" && ((i++))
			continue
		fi
		args+=("$w")
	done

	if [[ -z $verb ]]; then
		_srtctl_reply < <(compgen -W "$("$bin" --help 2>/dev/null |
			sed -n '/^Commands:/,/^$/p' | awk 'NF > 1 {print $1}')" -- "$cur")
		return
	fi

	case $prev in
	-f | --out | --cluster-config | --db)
		_srtctl_reply < <(compgen -f -- "$cur")
		compopt -o filenames 2>/dev/null
		return
		;;
	-o | --output)
		local formats
		formats=$(_srtctl_usage_alternatives "$bin" "$verb" output)
		# csv is a table of points: `get` offers it for points only.
		[[ $verb == get && ${args[0]-} != points ]] && formats=$(grep -vx csv <<<"$formats")
		_srtctl_reply < <(compgen -W "$formats" -- "$cur")
		return
		;;
	--run)
		_srtctl_reply < <(compgen -W "$(_srtctl_names "$bin" runs "${db[@]}")" -- "$cur")
		return
		;;
	--recipe)
		_srtctl_reply < <(compgen -W "$(_srtctl_names "$bin" recipes "${db[@]}")" -- "$cur")
		return
		;;
	--url | --interval | --timeout | --since | --limit | --reason | --job-name | --api-version | --threshold | --metric)
		return # a value of the user's
		;;
	esac

	if [[ $cur == -* ]]; then
		_srtctl_reply < <(compgen -W "$(_srtctl_flags "$bin" "$verb")" -- "$cur")
		return
	fi

	local kinds
	kinds=$(_srtctl_usage_alternatives "$bin" "$verb" kinds)
	if [[ -n $kinds ]]; then
		if [[ ${#args[@]} -eq 0 ]]; then
			_srtctl_reply < <(compgen -W "$kinds" -- "$cur")
		else
			_srtctl_reply < <(compgen -W "$(_srtctl_names "$bin" "${args[0]}" "${db[@]}")" -- "$cur")
		fi
		return
	fi
	case $verb in
	compare | report)
		# compare A B: two campaigns; report CAMPAIGN: one
		local most=2
		[[ $verb == report ]] && most=1
		if [[ ${#args[@]} -lt $most ]]; then
			_srtctl_reply < <(compgen -W "$(_srtctl_names "$bin" campaigns "${db[@]}")" -- "$cur")
		fi
		;;
	wait)
		# wait [recipe/]NAME... | wait campaign NAME
		if [[ ${args[0]-} == campaign ]]; then
			[[ ${#args[@]} -eq 1 ]] &&
				_srtctl_reply < <(compgen -W "$(_srtctl_names "$bin" campaigns "${db[@]}")" -- "$cur")
		else
			_srtctl_reply < <(compgen -W "$(_srtctl_names "$bin" recipes "${db[@]}") campaign" -- "$cur")
		fi
		;;
	esac
}

complete -F _srtctl srtctl
