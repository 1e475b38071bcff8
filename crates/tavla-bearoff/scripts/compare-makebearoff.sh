#!/usr/bin/env bash
# compare-makebearoff.sh -- time gnubg's makebearoff and tavla's builder on the same machine,
# alternating runs so that both see the same load. Prints one line per run and the medians.
#
# usage: compare-makebearoff.sh TAVLA_BEAROFF_BIN RUNS SPEC...
#   TAVLA_BEAROFF_BIN  `tavla bearoff`-compatible binary, e.g.
#                      target/release/examples/bearoff (cargo build --release --example bearoff
#                      -p tavla-bearoff --features plot) or `target/release/tavla bearoff`
#   SPEC  os6 | ts6x6 | ts6x6c | ts6x8 | ts6x8c   (ts...c = cubeful; gnubg's default is cubeful,
#         its -C flag turns the cube off)
# Needs /usr/games/makebearoff (Debian package gnubg).
set -euo pipefail
BIN=$1; RUNS=$2; shift 2
MB=${MAKEBEAROFF:-/usr/games/makebearoff}
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT
now() { date +%s.%N; }
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
for spec in "$@"; do
  case "$spec" in
    os6)    g=(-o 6);          t=(build --points 6 --checkers 15);;
    ts*x*c) p=${spec#ts}; p=${p%c}; g=(-t "$p");     t=(build --two-sided --cubeful --points "${p%x*}" --checkers "${p#*x}");;
    ts*x*)  p=${spec#ts};          g=(-t "$p" -C);  t=(build --two-sided --points "${p%x*}" --checkers "${p#*x}");;
    *) echo "bad spec $spec" >&2; exit 2;;
  esac
  : > "$DIR/g"; : > "$DIR/t"
  for ((i = 1; i <= RUNS; i++)); do
    s=$(now); "$MB" "${g[@]}" -f "$DIR/g.bd" > /dev/null 2>&1; e=$(now)
    gs=$(echo "$e - $s" | bc); echo "$gs" >> "$DIR/g"
    s=$(now); $BIN "${t[@]}" -o "$DIR/t.tbo" > /dev/null; e=$(now)
    ts=$(echo "$e - $s" | bc); echo "$ts" >> "$DIR/t"
    echo "$spec run $i: makebearoff ${gs}s  tavla ${ts}s  load $(cut -d' ' -f1 /proc/loadavg)"
  done
  gm=$(median < "$DIR/g"); tm=$(median < "$DIR/t")
  echo "$spec median: makebearoff ${gm}s  tavla ${tm}s  ratio $(echo "scale=1; $gm / $tm" | bc)"
done
