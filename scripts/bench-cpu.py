"""CPU time (user + system) of commands run one after another, alternating, as medians in ms.

For npm run bench: Node cannot read a child's CPU time, Python's getrusage(RUSAGE_CHILDREN) can.
Usage: python3 bench-cpu.py ROUNDS < cases.json   ({"name": [argv...], ...}; env from the parent)
"""
import json, resource, statistics, subprocess, sys

rounds = int(sys.argv[1])
cases = json.load(sys.stdin)
times = {name: [] for name in cases}
for i in range(rounds + 3):  # the first three warm the disk cache and the compile caches
    for name, argv in cases.items():
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        result = subprocess.run(argv, capture_output=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if result.returncode != 0:
            sys.exit(f"{name}: exit {result.returncode}: {result.stderr.decode()[:500]}")
        if i >= 3:
            times[name].append((after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000)
print(json.dumps({name: statistics.median(values) for name, values in times.items()}))
