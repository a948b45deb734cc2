#!/usr/bin/python3
"""Independent replay of the FLCE server of the authors' released code
(github.com/Yao-Learning/FLCE @ 71754e2) on a harness trace.

Every step cites the released file:line it follows.  Sources:
  F = algorithms/flce.py, T = tools.py, U = utils.py, K = KL_cmp.py.

Not part of the build or the tests (it needs NumPy): a check written from the released code's
description, none of its code, which compares its replay with the harness's trace files
(docs/flce.md, "The released code"; 2026-12-02: equal to 6e-16 on an --as-released run).

Usage: nice /usr/bin/python3 tools/released_replay.py RUN_DIR [--f32] [--dump]
  RUN_DIR: an FLCE run of `flce run --as-released` (its trace/ with prototypes.npy,
  selected.npy, initial_prototypes.npy and Q.npy; a packed study run has no prototypes).
  --f32 emulates the released float32
  tensors (torch default dtype) where the released code keeps tensors; the
  default is float64 throughout.

A "prototype" p[t,k,c] is a client's uploaded class prototype.  The released
update_local (F:424-436) keeps only the FIRST correctly classified sample
of each class: classList[label] becomes the 1-D feature hs[m] (F:430); for
later samples classList[label][0] is a 0-d scalar whose shape never equals
hs[m].shape (F:433-434), so nothing is added and class_dataNums stays 1;
class_mean = hs_first / 1 (F:466); a class with none is None (F:468-469).
preprototype (U:245-268) does the same with the initial global model for
round 1's previous prototypes.  The harness's trace holds exactly those
(trace/prototypes.npy == prototypes_first.npy with --proto-samples first);
NaN = None.
"""
import sys, csv, json, os
import numpy as np

args = [a for a in sys.argv[1:] if not a.startswith('--')]
if not args:
    sys.exit('usage: released_replay.py RUN_DIR [--f32] [--dump]')
RUN = args[0]
F32 = '--f32' in sys.argv
TR = os.path.join(RUN, 'trace')
ft = np.float32 if F32 else np.float64   # dtype of released *tensors*

P = np.load(os.path.join(TR, 'prototypes.npy'))          # [T,n,C,d] f32
S = np.load(os.path.join(TR, 'selected.npy')).astype(bool)  # [T,n]
G0 = np.load(os.path.join(TR, 'initial_prototypes.npy'))  # [C,d] f64
T_, n, C, d = P.shape


def norm(v):                       # torch.norm: 2-norm of the flattened tensor
    return ft(np.sqrt(np.sum(v.astype(ft) * v.astype(ft), dtype=ft)))


def cos(a, b):                     # torch.cosine_similarity(.unsqueeze(0).float()) ; .item()
    a = a.astype(np.float32 if F32 else np.float64)
    b = b.astype(np.float32 if F32 else np.float64)
    eps = 1e-8                     # torch default eps, clamps each norm
    na = max(np.sqrt(np.sum(a * a)), eps)
    nb = max(np.sqrt(np.sum(b * b)), eps)
    return float(np.sum(a * b) / (na * nb))


def client_similarity_P(pre, feats, selected):
    """T:114-354.  pre: list over classes of vector or None (the previous
    global class prototypes, pre_classes_avg; T:123-143).  feats[k][c]:
    vector or None; selected[k]: whether client k uploaded (a list of
    length 0 = not selected, T:153/162/195/216/288).
    Returns velocity [C][n], mass [C][n], momentum (= all_similarities,
    the normalised velocity*mass) [C][n]."""
    V = [[0.0] * n for _ in range(C)]
    M = [[0.0] * n for _ in range(C)]
    W = [[0.0] * n for _ in range(C)]
    for c in range(C):
        # --- velocity: T:146-174 -------------------------------------
        change = [0.0] * n
        for k in range(n):
            if not selected[k]:
                change[k] = 0.0                                   # T:153-154, 162-165
            elif pre[c] is None:                                  # T:152
                change[k] = 0.0 if feats[k][c] is None else norm(feats[k][c])   # T:156-160
            elif feats[k][c] is None:
                change[k] = norm(pre[c])                          # T:167-169 (selected, lacks c)
            else:
                change[k] = norm(pre[c] - feats[k][c].astype(ft))  # T:171-172
        V[c] = change
        # T:177-188 (allClass_changeNorm) is computed but never used.

        # --- mass, stage 1: plain class mean, cosines to it: T:191-242 ----
        have = [k for k in range(n) if selected[k] and feats[k][c] is not None]
        if not have:
            # classes_avg None -> all distances 0 (T:220), cmpAvg None,
            # tocmp 0 (T:292), class_sum 0 -> normSim 0 (T:314-315),
            # normChange 0 (T:332 * 0 or T:327 skip), final 0 (T:343).
            continue
        avg = sum(feats[k][c].astype(ft) for k in have) / ft(len(have))   # T:202-209
        dist = [0.0] * n
        for k in have:
            dist[k] = cos(feats[k][c], avg)                       # T:220-225
        # T:227-228: "allClass_distance[feature] + abs(min(...))" is an
        # expression statement whose value is discarded: no shift.
        dsum = sum(dist)                                          # T:234
        cnorm = [0.0] * n
        for k in range(n):
            if dist[k] == 0:                                      # T:236-237
                continue
            cnorm[k] = dist[k] / dsum                             # T:239-241
        # T:245-256: weighted prototypes; T:259-281: their SUM (the
        # division by cnt is commented out, T:280-281)
        cmp = None
        for k in range(n):
            if dist[k] == 0:                                      # T:249-250 -> int 0, skipped T:271-272
                continue
            term = (cnorm[k] * feats[k][c].astype(ft)).astype(ft)   # T:252-255
            cmp = term if cmp is None else (cmp + term).astype(ft)  # T:274-278
        # --- mass, stage 2: cosine to the weighted prototype, normalised:
        # T:284-318 ------------------------------------------------------
        to = [0.0] * n
        if cmp is not None:
            for k in have:
                to[k] = cos(feats[k][c], cmp)                     # T:292-296
        # T:298-299: same discarded expression, no shift.
        csum = sum(to)                                            # T:312
        ms = [0.0 if csum == 0 else to[k] / csum for k in range(n)]   # T:313-317
        M[c] = ms
        # --- momentum = velocity * mass, normalised: T:321-352 --------
        nc = [0.0] * n
        ncsum = 0.0
        for k in range(n):
            if change[k] == 0:                                    # T:327-328
                continue
            nc[k] = float(ft(change[k]) * ft(ms[k]))              # T:332-333 (.item())
            ncsum = float(ft(ncsum) + ft(nc[k]))                  # T:334 (torch.add)
        for k in range(n):
            if nc[k] == 0:                                        # T:343-344
                continue
            W[c][k] = float(ft(nc[k]) / ft(ncsum))               # T:347-349
    return V, M, W


def cal_prototypes_full_contri(W, feats, selected):
    """T:1347-1381: next round's previous global prototype of class c =
    SUM_k W[c][k] * p_{k,c} over selected clients that have c (no division,
    T:1379-1380); None where no selected client has c (every entry stays the
    int 0, T:1370-1371): the class is forgotten, not carried over."""
    out = [None] * C
    for c in range(C):
        for k in range(n):
            if not selected[k] or feats[k][c] is None:            # T:1352-1355
                continue
            term = (ft(W[c][k]) * feats[k][c].astype(ft)).astype(ft)   # T:1356-1359
            out[c] = term if out[c] is None else (out[c] + term).astype(ft)  # T:1373-1377
    return out


def cal_client_full_contri(W):
    """T:1333-1345: the aggregation weight p_k = sum_c W[c][k] /
    sum_k' sum_c W[c][k'] (used as p[client] in update_global, F:206, F:483)."""
    p = [sum(W[c][k] for c in range(C)) for k in range(n)]
    s = sum(p)
    return [x / s for x in p]


def main():
    # Round 1's previous prototypes: pre_clients_prototype_list holds, for
    # each round-1 client, preprototype() of the initial model (F:173-176),
    # and T:123-141 averages them per class over the clients that have one.
    # The harness records that average as initial_prototypes.npy (NaN row = None).
    pre = [None if np.isnan(G0[c]).any() else G0[c].astype(ft) for c in range(C)]
    allV, allM, allW, props, protos = [], [], [], [], []
    for t in range(T_):
        feats = [[None if (not S[t, k] or np.isnan(P[t, k, c]).any()) else P[t, k, c]
                  for c in range(C)] for k in range(n)]
        V, M, W = client_similarity_P(pre, feats, S[t])           # F:202
        pre = cal_prototypes_full_contri(W, feats, S[t])          # F:204
        p = cal_client_full_contri(W)                             # F:206
        allV.append(V); allM.append(M); allW.append(W); props.append(p)
        protos.append(pre)
    W = np.array(allW)                      # [T, C, n]: ALLContribution_Matrix (F:218, saved F:257)
    # Final contributions as reported: KL_cmp.py:96-98 loads the saved matrix
    # and sums over rounds (axis 0) then classes (axis 0 again) -> [n].
    final = W.sum(axis=0).sum(axis=0)
    # KL: K:105 entropy(KLnorm(final), DataQuality) with KLnorm the min-max
    # map to [0.01, 1] (K:85-89) and DataQuality = ones (uniform, 'alg'/'G0A0',
    # K:51-52, K:103); scipy.stats.entropy normalises both to sum 1.
    mn, mx = min(final), max(final)
    q = np.array([(x - mn) / (mx - mn) * 0.99 + 0.01 for x in final])
    pq = q / q.sum()
    u = np.ones(n) / n
    kl = float(np.sum(pq * np.log(pq / u)))
    return dict(V=np.array(allV), M=np.array(allM), W=W, props=np.array(props),
                final=final, kl=kl, protos=protos)


def compare(R):
    W = R['W'].transpose(0, 2, 1)           # -> [T, n, C] like Q.npy
    Q = np.load(os.path.join(TR, 'Q.npy'))
    sel = S[:, :, None].repeat(C, 2)
    assert np.isnan(Q[~sel]).all() and not np.isnan(Q[sel]).any()
    dq = np.abs(W[sel] - Q[sel])
    rel = dq / np.maximum(np.abs(Q[sel]), 1e-300)
    nz = np.abs(Q[sel]) > 0
    print('momentum vs Q.npy: %d selected entries, max|diff| %.3g, max rel (Q!=0) %.3g, '
          'zero pattern equal: %s' % (sel.sum(), dq.max(), rel[nz].max() if nz.any() else 0,
                                      np.array_equal(W[sel] == 0, Q[sel] == 0)))
    rc = np.full((T_, n), np.nan)
    with open(os.path.join(RUN, 'round_contributions.csv')) as f:
        for r in csv.DictReader(f):
            rc[int(r['round']) - 1, int(r['client'])] = float(r['contribution'])
    props = R['props']
    m = ~np.isnan(rc)
    print('round_contributions rows: %d (selected %d)' % (m.sum(), S.sum()))
    print('  vs released aggregation weight p (T:1333-1345): max|diff| %.3g' %
          np.abs(props[m] - rc[m]).max())
    Wsum = W.sum(2)                          # sum_c w_kc
    for name, alt in [('sum_c w / C', Wsum / C),
                      ('sum_c w / #classes present', props)]:
        print('  vs %-28s max|diff| %.3g' % (name, np.abs(alt[m] - rc[m]).max()))
    print('  per round: sum of round_contributions', np.round(np.nansum(rc, 1), 6),
          ' classes present', [int(sum(any(S[t, k] and not np.isnan(P[t, k, c]).any()
                                             for k in range(n)) for c in range(C)))
                                for t in range(T_)])
    cc = np.zeros(n)
    with open(os.path.join(RUN, 'contributions.csv')) as f:
        for r in csv.DictReader(f):
            cc[int(r['client'])] = float(r['contribution'])
    fin = R['final']
    print('final (sum over rounds, classes; K:97-98):', np.round(fin, 6))
    print('final normalised vs contributions.csv: max|diff| %.3g' %
          np.abs(fin / fin.sum() - cc).max())
    print('released KL (K:85-89,103-105): %.9g' % R['kl'])
    return rc, cc


if __name__ == '__main__':
    np.set_printoptions(precision=6, suppress=True, linewidth=160)
    R = main()
    compare(R)
    if '--dump' in sys.argv:
        for t in range(T_):
            print('round', t + 1)
            for k in np.flatnonzero(S[t]):
                print('  client', k, 'V', np.round(R['V'][t, :, k], 4), '\n            M',
                      np.round(R['M'][t, :, k], 4), '\n            W', np.round(R['W'][t, :, k], 4))
            print('  p', np.round(R['props'][t], 6))
