#!/usr/bin/env bash
# Third call of 2026-12-04: campaigns in steady state (the known findings already in --out,
# so nothing is minimized again), and the isa campaign with fewer judging threads.
set -u
out=$1; b=/tmp/b/ptxfuzz; l=$(mktemp -d)/r3; mkdir -p $l
pack() { tar czf "$out/r3.tar.gz" -C "$(dirname $l)" r3; }
step() { echo "$(date -u +%H:%M:%S) $*" | tee -a $l/steps.txt; pack; }
camp() { n=$1; d=$2; s=$3; shift 3; step "campaign $n"; timeout $((s+60)) $b campaign --target cuda --seconds $s --out $l/d-$d --quiet "$@" > $l/c-$n.txt 2>&1; echo "exit $?" >> $l/c-$n.txt; cp $l/d-$d/summary.json $l/c-$n.summary.json 2>/dev/null; grep -v "new finding" $l/c-$n.txt > $l/c-$n.short; rm -f $l/c-$n.txt; }
camp compiled-first comp 20 --compiled-share 1
camp compiled-known comp 20 --compiled-share 1 --seed 2
camp default-first def 20
camp default-known def 20 --seed 2
camp isa-known def 20 --compiled-share 0 --seed 2
camp isa-known-jobs12 def 20 --compiled-share 0 --jobs 12 --seed 2
rm -rf $l/d-*
step done
