#!/usr/bin/env python3
"""truth_retrain.py: retrain coalitions of a truth with `flce run --members` and compare each with
its row of utilities.csv (the final round's accuracy and test loss as metrics.csv writes them, the
final model's digest). What issue 63 asks of any entry of the table: anyone can reproduce it.

    tools/truth_retrain.py TRUTH [MASK[:TRAIN_SEED] ...] [--draw K] [--flce BIN] [--keep DIR]

TRUTH a folder of `flce truth`; MASK a coalition's mask (its row in utilities.csv), with the train
seed of a truth of several seeds (default: the truth's --seed); --draw K adds K rows drawn at
random (Python's random, seeded by the truth's seed: the same rows each time) from the non-empty
coalitions; --flce the binary (default build/flce). The command is built from truth.json alone:
its run_flags, --algo, --members, --test-loss, --train-seed where it is not --seed, and
--participation full for a truth of that arm (docs/commands/truth.md, "Seeds"; docs/formats.md).
No shell runs: each command is a list of arguments. Exit status 0 when every row agrees, 1 when
one differs, 2 for bad arguments.
"""
import csv, json, os, random, subprocess, sys, tempfile


def usage(msg):
    print(f'truth_retrain.py: {msg}', file=sys.stderr)
    sys.exit(2)


def main(argv):
    args, flce, keep, draw = [], 'build/flce', None, 0
    i = 0
    while i < len(argv):
        a = argv[i]
        if a in ('--flce', '--keep', '--draw'):
            if i + 1 >= len(argv):
                usage(f'{a} takes a value')
            v = argv[i + 1]
            if a == '--flce':
                flce = v
            elif a == '--keep':
                keep = v
            else:
                if not v.isdigit() or int(v) < 1:
                    usage(f'--draw {v!r}: a whole number from 1')
                draw = int(v)
            i += 2
            continue
        if a.startswith('--'):
            usage(f'{a}: unknown option')
        args.append(a)
        i += 1
    if not args:
        usage('usage: truth_retrain.py TRUTH [MASK[:TRAIN_SEED] ...] [--draw K] [--flce BIN] [--keep DIR]')
    truth = args[0]
    try:
        with open(os.path.join(truth, 'truth.json')) as f:
            tj = json.load(f)
        with open(os.path.join(truth, 'utilities.csv'), newline='') as f:
            rows = list(csv.DictReader(f))
    except (OSError, ValueError) as e:
        usage(f'{truth}: not a truth folder ({e})')
    n, seed = int(tj['clients']), int(tj['seed'])
    byrow = {(int(r['mask']), int(r['train_seed'])): r for r in rows}
    want = []
    for a in args[1:]:
        m, _, s = a.partition(':')
        if not m.isdigit() or (s and not s.isdigit()):
            usage(f'{a!r}: MASK or MASK:TRAIN_SEED, whole numbers')
        key = (int(m), int(s) if s else seed)
        if key not in byrow:
            usage(f'{a!r}: no such row in {truth}/utilities.csv')
        want.append(key)
    if draw:
        pool = sorted(k for k in byrow if k[0] != 0 and k not in want)
        want += random.Random(seed).sample(pool, min(draw, len(pool)))
    if not want:
        usage('no coalition named (MASK, or --draw K)')
    base = keep or tempfile.mkdtemp(prefix='truth-retrain-')
    bad = 0
    for mask, ts in want:
        members = [str(c) for c in range(n) if mask >> c & 1]
        out = os.path.join(base, f'm{mask}-t{ts}')
        cmd = [flce, 'run'] + list(tj['run_flags']) + ['--algo', tj['algo'], '--members', ','.join(members), '--test-loss',
                                                        '--quiet', '--out', out, '--force']
        if ts != seed:
            cmd += ['--train-seed', str(ts)]
        if tj.get('participation') == 'full':
            cmd += ['--participation', 'full']
        p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if p.returncode != 0:
            print(f'FAILED  mask {mask} seed {ts}: flce run: {p.stderr.strip()}')
            bad += 1
            continue
        with open(os.path.join(out, 'metrics.csv'), newline='') as f:
            last = list(csv.DictReader(f))[-1]
        dg = ''
        with open(os.path.join(out, 'digests.txt')) as f:
            for ln in f:
                if ln.startswith('final_model '):
                    dg = ln.split()[1]
        r = byrow[(mask, ts)]
        got = (last['accuracy'], last['test_loss'], dg)
        exp = (r['accuracy'], r['loss'], r['model_digest'])
        ok = got == exp
        bad += not ok
        print(f'{"agree " if ok else "DIFFER"}  mask {mask} ({";".join(members)}) seed {ts}: table {exp}, flce run {got}')
    print(f'{len(want) - bad} agree, {bad} differ ({base})')
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
