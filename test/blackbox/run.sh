#!/usr/bin/env bash
# Runs every test/blackbox/t_*.sh (or those named) and sums their counts.
cd "$(dirname "$0")" || exit 1
total_pass=0; total_fail=0; status=0
files=("$@"); [ ${#files[@]} -eq 0 ] && files=(t_*.sh)
for t in "${files[@]}"; do
	out=$(bash "$t" 2> >(cat >&2)) || status=1
	echo "$out"
	line=$(printf '%s\n' "$out" | grep -E '[0-9]+ passed, [0-9]+ failed' | tail -1)
	p=$(echo "$line" | sed -E 's/.* ([0-9]+) passed.*/\1/'); f=$(echo "$line" | sed -E 's/.* ([0-9]+) failed.*/\1/')
	[ -z "$line" ] && { echo "$t: no summary line" >&2; status=1; p=0; f=1; }
	total_pass=$((total_pass + p)); total_fail=$((total_fail + f))
done
echo "blackbox: $total_pass passed, $total_fail failed"
[ $status -eq 0 ] && [ $total_fail -eq 0 ]
