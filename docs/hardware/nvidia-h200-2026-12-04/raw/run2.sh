#!/usr/bin/env bash
# Second call of 2026-12-04: the rcp probe, modes-check, and the isa/compiled campaigns.
set -u
out=$1; b=/tmp/b/ptxfuzz; l=$(mktemp -d)/r2; mkdir -p $l
pack() { tar czf "$out/r2.tar.gz" -C "$(dirname $l)" r2; }
step() { echo "$(date -u +%H:%M:%S) $*" | tee -a $l/steps.txt; pack; }
step info; { nvidia-smi -L; nproc; $b engines; } > $l/info.txt 2>&1
step probe
for e in isa compiled; do timeout 60 $b capture-check .gpu/probe.txt --target cuda --exec $e --differ $l/probe-differ-$e.txt > $l/probe-$e.txt 2>&1; echo "exit $?" >> $l/probe-$e.txt; done
step modes; timeout 90 $b modes-check --target cuda --programs 10000 --differ $l/modes.jsonl > $l/modes.txt 2>$l/modes.log; echo "exit $?" >> $l/modes.txt
camp() { n=$1; s=$2; shift 2; step "campaign $n"; timeout $((s+60)) $b campaign --target cuda --seconds $s --out $l/c-$n --quiet "$@" > $l/c-$n.txt 2>&1; echo "exit $?" >> $l/c-$n.txt; cp $l/c-$n/summary.json $l/c-$n.summary.json 2>/dev/null; grep -v "new finding" $l/c-$n.txt > $l/c-$n.short; rm -rf $l/c-$n $l/c-$n.txt; }
camp isa60 60 --compiled-share 0
camp default30 30
camp judge20 20 --compiled-share 0 --judge sm_90
camp compiled20 20 --compiled-share 1
camp cpp16k20 20 --compiled-share 0 --cases-per-program 16384
step done
