#!/usr/bin/env bash
# Links the public BM25 runs and the MS MARCO query sample into this example experiment.
# usage: link-runs.sh REALDATA_DIR   (a folder laid out like ../shared/realdata)
# Your own runs: put them at runs/<collection>/<model>/fold<N>.run (one file per fold, or
# fold1.run when there are no folds), e.g. runs/robust04/monot5/fold3.run.
set -eu
src=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$here/runs/robust04/bm25" "$here/runs/core17/bm25" "$here/runs/core18/bm25" "$here/train"
for fold in 1 2 3 4 5; do
    ln -sf "$src/robust04/runs/bm25.top150.fold$fold.run" "$here/runs/robust04/bm25/fold$fold.run"
done
ln -sf "$src/core17/runs/bm25.top1000.run" "$here/runs/core17/bm25/fold1.run"
ln -sf "$src/core18/runs/bm25.top1000.run" "$here/runs/core18/bm25/fold1.run"
ln -sf "$src/msmarco/doctrain-queries.sample.csv" "$here/train/msmarco-doctrain-sample.csv"
echo "linked; topics and qrels come from ir_datasets (IR_DATASETS_HOME=${IR_DATASETS_HOME:-~/.ir_datasets})"
