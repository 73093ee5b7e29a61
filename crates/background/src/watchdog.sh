# agent-tools watchdog (see lifeline.rs). Standard input is a socket whose other end only the
# program that started this holds: end of file means that program is gone, however it ended
# (SIGKILL included). Then every process tree it registered is ended, and this exits.
#
# Lines read:  w MARKER              processes whose environment holds MARKER (KEY=value)
#              r MARKER PID START    MARKER's root: PID, started START clock ticks after boot
#              u MARKER              forget MARKER and its root
trap '' HUP INT QUIT TERM PIPE TSTP TTIN TTOU
cd / || exit 1
entries=
while read -r op marker pid start; do
  case $op in
    w) entries="$entries $marker" ;;
    r) entries="$entries $marker,$pid,$start" ;;
    u) kept=
       for e in $entries; do
         case $e in "$marker"|"$marker",*) ;; *) kept="$kept $e" ;; esac
       done
       entries=$kept ;;
  esac
done

# The roots still running (same start time: not a reused pid) and the markers.
markers=
roots=
for e in $entries; do
  case $e in
    *,*,*)
      pid=${e#*,}; start=${pid#*,}; pid=${pid%%,*}
      if IFS= read -r line 2>/dev/null < "/proc/$pid/stat"; then
        set -- ${line##*") "}
        if [ $# -ge 20 ]; then
          shift 19
          [ "$1" = "$start" ] && roots="$roots $pid"
        fi
      fi ;;
    *) markers="$markers $e" ;;
  esac
done
[ -n "$markers$roots" ] || exit 0
me=$$

# Sets $found: the live processes that descend from a root or carry a marker.
scan() {
  pairs=
  alive=" "
  for f in /proc/[0-9]*/stat; do
    IFS= read -r line 2>/dev/null < "$f" || continue
    set -- ${line##*") "}
    case $1 in Z|X|"") continue ;; esac
    pid=${line%% *}
    pairs="$pairs $pid,$2"
    alive="$alive$pid "
  done
  tree=" $roots "
  more=1
  while [ -n "$more" ]; do
    more=
    for p in $pairs; do
      case $tree in *" ${p%,*} "*) continue ;; esac
      case $tree in *" ${p#*,} "*) tree="$tree${p%,*} "; more=1 ;; esac
    done
  done
  if [ -n "$markers" ]; then
    set --
    for m in $markers; do set -- "$@" -e "$m"; done
    for f in $(grep -lsaxzF "$@" /proc/[0-9]*/environ 2>/dev/null); do
      p=${f#/proc/}; p=${p%/environ}
      case $tree in *" $p "*) ;; *) tree="$tree$p " ;; esac
    done
  fi
  found=
  for p in $tree; do
    [ "$p" -gt 1 ] 2>/dev/null && [ "$p" != "$me" ] || continue
    case $alive in *" $p "*) found="$found $p" ;; esac
  done
}

# Stopped, the roots start nothing new and what they started stays in their tree; then stop
# everything until no new process shows up, and kill it all until nothing is left.
for r in $roots; do kill -STOP "$r" 2>/dev/null; done
frozen=" "
rounds=0
while [ $rounds -lt 20 ]; do
  rounds=$((rounds + 1))
  scan
  new=
  for p in $found; do case $frozen in *" $p "*) ;; *) new="$new $p" ;; esac; done
  [ -n "$new" ] || break
  kill -STOP $new 2>/dev/null
  frozen="$frozen${new# } "
done
rounds=0
while [ $rounds -lt 50 ]; do
  rounds=$((rounds + 1))
  [ -n "$found" ] || exit 0
  kill -KILL $found 2>/dev/null
  sleep 0.1 2>/dev/null || sleep 1
  scan
done
exit 1
