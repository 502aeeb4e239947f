#!/bin/sh
# `hlovm graph` on every model of a corpus folder: each must give DOT text
# (a digraph, every node and edge on its line). One model of about 3,000
# instructions is also drawn as svg through Graphviz, within a time limit.
#   graph_corpus.sh HLOVM MODELS_DIR SVG_MODEL
set -eu
hlovm=$1
models=$2
svg_model=$3
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
count=0
for model in "$models"/*.hlo; do
  name=$(basename "$model" .hlo)
  if ! "$hlovm" graph -o "$out/$name.dot" "$model" 2>"$out/err"; then
    echo "FAIL: hlovm graph $model"; cat "$out/err"; exit 1
  fi
  head -1 "$out/$name.dot" | grep -q '^digraph ' || { echo "FAIL: $model: no digraph"; exit 1; }
  tail -1 "$out/$name.dot" | grep -q '^}$' || { echo "FAIL: $model: unterminated"; exit 1; }
  count=$((count + 1))
done
echo "graph: DOT for $count models"
if command -v dot >/dev/null 2>&1; then
  start=$(date +%s)
  "$hlovm" graph -o "$out/model.svg" "$models/$svg_model"
  seconds=$(( $(date +%s) - start ))
  grep -q '<svg' "$out/model.svg" || { echo "FAIL: $svg_model: no svg"; exit 1; }
  echo "graph: $svg_model as svg in ${seconds} s"
  [ "$seconds" -le 60 ] || { echo "FAIL: svg took ${seconds} s"; exit 1; }
else
  echo "graph: Graphviz's dot not installed; svg not checked"
fi
