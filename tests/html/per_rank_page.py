"""The summary page's "Per rank" card and per-rank layer columns (issue 43),
in the browser test_html.py drives.

`nnscan summary tests/cli/tiny_cnn.onnx --optimizer adamw --parallel
fsdp=2,dp=2 --budget B --format html` (B too small: the verdict names the
axis to grow; B large: it fits), checked against the same command's
`--format json` document parsed here: every box of the card carries the
JSON's number (data-value) and shows it in the page's units, formatted
again here from that number by the rules of docs/html.md (three
significant digits, IEC units for bytes); the mesh is the JSON's, axis by
axis; the budget line says what the JSON's budget says; with every row
open and exact numbers, each layer's "Param bytes / rank" and "Comm /
rank" cells are that layer's per_rank numbers. No console error, no
exception, no request. A page without a plan has no card and no such
columns.
"""
import json
import os


def clever(v, unit):
    """A number as the page prints it, from its rules (not its code)."""
    b = unit == 'bytes'
    base = 1024 if b else 1000
    units = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB', 'EiB'] if b else ['', 'k', 'M', 'G', 'T', 'P', 'E']
    a, i = abs(v), 0
    while a >= base * 0.9995 and i < len(units) - 1:
        a /= base
        i += 1
    if i == 0:
        s = str(int(round(a)))
    else:
        s = '%.0f' % a if a >= 99.95 else '%.1f' % a if a >= 9.995 else '%.2f' % a
    return ('-' if v < 0 else '') + s + (' ' + units[i] if units[i] else (' B' if b else ''))


def raw(v):
    return '{:,}'.format(v)


BOXES = [('world_size', 'count'), ('params', 'count'), ('param_bytes', 'bytes'),
         ('grad_bytes', 'bytes'), ('optimizer_bytes', 'bytes'), ('saved_bytes', 'bytes'),
         ('train_peak_bytes', 'bytes'), ('flops', 'count'), ('macs', 'count'),
         ('comm_bytes', 'bytes')]


def check_per_rank(page, nnscan, run, check, out, polish):
    model = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'cli', 'tiny_cnn.onnx')
    base = [nnscan, 'summary', model, '--optimizer', 'adamw', '--parallel', 'fsdp=2,dp=2']
    for name, budget in (('per_rank_grow', '100'), ('per_rank_fits', '8GB')):
        html = os.path.join(out, name + '.html')
        run(*(base + ['--budget', budget, '--format', 'html', '-o', html]))
        doc = json.loads(run(*(base + ['--budget', budget, '--format', 'json'])))
        r = doc['totals']['per_rank']
        page.open('file://' + html)
        err = page.eval('document.body.dataset.error || ""')
        if not check(not err, '%s: the page failed: %s' % (name, err)):
            continue
        got = page.eval('''Array.from(document.querySelectorAll("#per-rank .total")).map(function (b) {
            return [b.dataset.key, b.dataset.value, b.querySelector(".total-value").textContent,
                    b.querySelector(".total-value").title, b.querySelector(".total-sub").textContent]; })''')
        got = {k: (v, t, title, sub) for k, v, t, title, sub in got}
        want = [(k, u, r[k]) for k, u in BOXES] + [('comm.' + k, 'bytes', v) for k, v in r['comm'].items()]
        check(sorted(got) == sorted(k for k, _, _ in want),
              '%s: the card has boxes %r, the JSON %r' % (name, sorted(got), [k for k, _, _ in want]))
        for k, unit, v in want:
            if k not in got:
                continue
            gv, text, title, _ = got[k]
            check(gv == str(v), '%s: %s carries %r, the JSON %r' % (name, k, gv, v))
            check(text == clever(v, unit), '%s: %s shows %r, not %r' % (name, k, text, clever(v, unit)))
            check(title == raw(v) + (' bytes' if unit == 'bytes' else ''),
                  '%s: %s exact %r, the JSON %r' % (name, k, title, v))
        mesh = ' × '.join('%s=%d' % kv for kv in r['mesh'].items())
        check(r['mesh'] == {'fsdp': 2, 'dp': 2} or r['mesh'] == {'dp': 2, 'fsdp': 2},
              '%s: the JSON mesh is %r' % (name, r['mesh']))
        check(got.get('world_size', (0, 0, 0, ''))[3] == mesh,
              '%s: the mesh reads %r, the JSON %r' % (name, got.get('world_size'), mesh))
        b = r['budget']
        line = page.eval('(function (p) { return p ? [p.textContent, p.dataset.fits, p.dataset.grow] : null; })'
                         '(document.getElementById("per-rank-budget"))')
        size = clever(b['bytes'], 'bytes')
        text = ('Fits in %s per rank.' % size if b['fits']
                else 'Does not fit in %s per rank: grow %s.' % (size, b['grow']))
        check(line == [text, 'true' if b['fits'] else 'false', b.get('grow') or ''],
              '%s: the budget line %r, the JSON %r' % (name, line, b))
        check(b['fits'] == (name == 'per_rank_fits'), '%s: the JSON budget %r' % (name, b))
        # The layers table, every row open, exact numbers.
        page.eval('document.querySelector(\'#depth [data-key="all"]\').click(); '
                  'document.querySelector(\'#numbers [data-key="raw"]\').click(); 1')
        rows = page.eval('''Array.from(document.querySelectorAll(".tr[data-path]")).map(function (t) {
            function c(k) { var e = t.querySelector(".c-" + k); return e ? e.textContent : null; }
            return [t.dataset.path, c("rank_param_bytes"), c("rank_comm")]; })''')
        rows = {p: (pb, cb) for p, pb, cb in rows}
        layers = [l for l in doc['layers'] if 'per_rank' in l]
        check(layers and len(rows) == len(doc['layers']),
              '%s: %d rows for %d layers (%d with per_rank)' % (name, len(rows), len(doc['layers']), len(layers)))
        comm_seen = False
        for l in doc['layers']:
            pr = l.get('per_rank')
            wantc = (raw(pr['param_bytes']), raw(pr['comm_bytes'])) if pr else ('–', '–')
            comm_seen = comm_seen or bool(pr and pr['comm_bytes'])
            check(rows.get(l['path']) == wantc, '%s: layer %r shows %r, the JSON %r'
                  % (name, l['path'], rows.get(l['path']), pr))
        check(comm_seen, '%s: no layer sends anything (a test that cannot fail)' % name)
        problems = page.problems()
        check(not problems, '%s: %r' % (name, problems))
        page.screenshot(os.path.join(out, name + '.png'))
        polish(page, name, html, out, wide=True)  # 17 columns: one scrollbar, as a roofline's
        problems = page.problems()
        check(not problems, '%s at 1400 px: %r' % (name, problems))
        print('%s: the per-rank card and columns are the JSON\'s' % name)
    # Without a plan: no card, no columns.
    html = os.path.join(out, 'per_rank_none.html')
    run(nnscan, 'summary', model, '--format', 'html', '-o', html)
    page.open('file://' + html)
    check(page.eval('!document.getElementById("per-rank") && !document.querySelector(".c-rank_comm")'),
          'per_rank_none: a per-rank card or column without a plan')
