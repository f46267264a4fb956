#!/usr/bin/python3
"""The HTML report in a real browser (Debian's chromium, headless, offline).

For resnet18 and a vision transformer (fixtures), the LLaMA-shaped bench
graph (bench/gen_models.py, generated here in a fraction of a second), a
model whose layer names try to break out of the page's script block and
one with an op that has no cost rule (tiny_tied), this
writes `nnscan summary --format html`, opens it with networking disabled
and checks, from the DOM after the viewer ran, against the model's
`--format json` document parsed here with Python's json:

  - every top-level module is drawn in the icicle, each box as wide as its
    share of the metric, under the metric it has;
  - the numbers the table shows for a few layers (raw numbers, found with
    the search box) are the JSON's;
  - switching the metric changes the drawing, and the boxes carry the new
    metric's values;
  - the notes name the uncounted ops and the symbols taken as 1;
  - the memory curve marks the reported peak;
  - no console error, no exception, no network request;
and saves a full-page screenshot of each under OUT (a test artifact). The
`nnscan table --format html` page of four crowded mobile nets is opened
too: every model has a point and a label, and no two labels overlap.
With `--hardware` (resnet18 on h100-sxm, a LLaMA decode step on h200) the
roofline chart has the device's roofs, a point per layer under them, and a
click on a point selects its layer. A parallel plan's "Per rank" card and
per-rank layer columns: tests/html/per_rank_page.py.

Usage: test_html.py --nnscan PATH --out DIR   (exit 77: no chromium here)
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, '..', '..'))
sys.path.insert(0, HERE)
import cdp  # noqa: E402
import per_rank_page  # noqa: E402

FIXTURES = os.path.join(ROOT, 'tests', 'fixtures', 'models')
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print('FAIL: ' + what)
    return cond


def run(*args):
    r = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        raise SystemExit('%s failed (%d): %s' % (' '.join(args), r.returncode, r.stderr))
    return r.stdout


def masked_attention_model(path):
    """softmax(Q.K^T / 2 + causal mask) V in a module 'attn', the mask an
    initializer: the page shows the MACs (mask) column."""
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    f = TensorProto.FLOAT
    ins = [helper.make_tensor_value_info(n, f, [1, 2, 6, 4]) for n in 'qkv']
    keep = np.tril(np.ones((6, 6), bool))
    mask = np.where(keep, 0, -np.inf).astype(np.float32)
    nodes = [helper.make_node('Transpose', ['k'], ['kt'], name='/attn/T', perm=[0, 1, 3, 2]),
             helper.make_node('MatMul', ['q', 'kt'], ['s'], name='/attn/qk/MatMul'),
             helper.make_node('Mul', ['s', 'half'], ['ss'], name='/attn/Mul'),
             helper.make_node('Add', ['ss', 'mask'], ['sm'], name='/attn/Add'),
             helper.make_node('Softmax', ['sm'], ['p'], name='/attn/Softmax', axis=-1),
             helper.make_node('MatMul', ['p', 'v'], ['y'], name='/attn/pv/MatMul')]
    g = helper.make_graph(nodes, 'masked', ins, [helper.make_tensor_value_info('y', f, None)],
                          [numpy_helper.from_array(mask, 'mask'),
                           numpy_helper.from_array(np.array(0.5, np.float32), 'half')])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid('', 17)]), path)


def hostile_model(path):
    """Layer names holding </script>, <!-- and quotes."""
    import onnx
    from onnx import TensorProto, helper
    names = ['/blk</script><script>window.pwned=1</script>/Relu',
             '/x<!--y/Relu', "/q\"uote'&amp;/Relu"]
    nodes, prev = [], 'x'
    for i, n in enumerate(names):
        out = 'y' if i == len(names) - 1 else 't%d' % i
        nodes.append(helper.make_node('Relu', [prev], [out], name=n))
        prev = out
    g = helper.make_graph(nodes, 'hostile</script>',
                          [helper.make_tensor_value_info('x', TensorProto.FLOAT, [1, 8])],
                          [helper.make_tensor_value_info('y', TensorProto.FLOAT, [1, 8])])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid('', 17)]), path)


# ---- one summary page ----

METRICS = ('macs', 'flops', 'params', 'activation_bytes', 'dmas')
CELLS = {'params': 'params', 'buffers': 'buffers', 'flops': 'flops', 'macs': 'macs',
         'dmas': 'dmas', 'activation_bytes': 'activation_bytes'}


def shape_text(v):
    if not v:
        return '–'
    if v['shape'] is None:
        return '?'
    return '(' + ', '.join('?' if d is None else str(d) for d in v['shape']) + ')'


def rf_text(rf, key):
    """A layer's RF, Stride or Pad cell as docs/json.md's `rf` reads and the
    text report prints it: "whole" (field) or "–" once the spatial axes are
    gone, "7" when every axis agrees, else "7x5"; a field that also depends
    on global context gets "+g"."""
    if not rf:
        return '–'
    if rf['whole']:
        return 'whole' if key == 'field' else '–'
    if not rf['axes']:
        return '–'
    v = rf[key]
    text = str(v[0]) if all(x == v[0] for x in v) else 'x'.join(str(x) for x in v)
    return text + ('+g' if key == 'field' and rf['global_context'] else '')


def boxes(page):
    return page.eval('''Array.from(document.querySelectorAll("svg.icicle g.box")).map(function (g) {
        return [g.getAttribute("data-path"), +g.getAttribute("data-value"),
                +g.querySelector("rect").getAttribute("width")]; })''')


def embedded(html):
    """The document the page carries, decoded here with Python's own
    base64, gzip and json."""
    import base64
    import gzip
    import re
    text = open(html, encoding='utf-8').read()
    m = re.search(r'<script type="application/json" id="nnscan-data" data-kind="([^"]*)" '
                  r'data-encoding="([^"]*)">\n(.*?)\n</script>', text, re.S)
    if not m:
        return None, None, None
    body = m.group(3)
    if m.group(2) == 'gzip+base64':
        body = gzip.decompress(base64.b64decode(body)).decode('utf-8')
    return m.group(1), m.group(2), json.loads(body)


def check_summary(page, name, html, doc, shots):
    kind, enc, carried = embedded(html)
    check(kind == 'nnscan.summary' and carried == doc,
          '%s: the page does not carry the JSON document (%s, %s)' % (name, kind, enc))
    print('%s: document embedded as %s' % (name, enc))
    url = 'file://' + html
    page.open(url)
    err = page.eval('document.body.dataset.error || ""')
    if not check(not err, '%s: the page failed: %s' % (name, err)):
        return
    root = doc['tree']
    top = [c['info'] for c in root['children']]
    width = page.eval('document.querySelector("svg.icicle").width.baseVal.value')

    # The legend's families are the document's (its op types' family), the
    # viewer keeping no list of its own; those that do arithmetic in this
    # model each have a colour of their own.
    flops = {}
    for o in doc.get('op_types', []):
        if o.get('family'):
            fam = o['family'].replace('_', ' ')
            flops[fam] = flops.get(fam, 0) + (o.get('flops') or 0)
    legend = page.eval('''Array.from(document.querySelectorAll(".legend .leg")).map(function(l){
        return [l.textContent, getComputedStyle(l.querySelector("i")).backgroundColor];})''')
    for fam, _ in legend:
        check(fam in flops or fam == 'unknown',
              '%s: legend family %r is not in the document' % (name, fam))
    work = [c for f, c in legend if flops.get(f, 0) > 0]
    check(len(work) > 0 and len(set(work)) == len(work),
          '%s: families that do arithmetic: none, or two share a colour: %r'
          % (name, legend))

    # Every top-level module is drawn, as wide as its share, under each
    # metric that gives it a share of at least half a pixel, and as a 1 px
    # sliver when its share is smaller but not zero.
    drawn_somewhere = set()
    drawings = {}
    for m in METRICS:
        page.eval('document.querySelector(\'#metric [data-key="%s"]\').click()' % m)
        check(page.eval('document.body.dataset.metric') == m, '%s: metric %s not selected' % (name, m))
        got = {p: (v, w) for p, v, w in boxes(page)}
        drawings[m] = sorted(got.items())
        total = root['info'][m]
        check(got.get('') and got[''][0] == total,
              '%s/%s: the root box shows %r, the JSON %r' % (name, m, got.get(''), total))
        for t in top:
            share = width * t[m] / total if total else 0
            if share >= 0.5:
                ok = check(t['path'] in got, '%s/%s: top-level %r (%d) is not drawn'
                           % (name, m, t['path'], t[m]))
                if ok:
                    v, w = got[t['path']]
                    check(v == t[m], '%s/%s: %r drawn with value %r, JSON %r' % (name, m, t['path'], v, t[m]))
                    check(abs(w - share) <= 1.5, '%s/%s: %r is %.1f px wide, its share is %.1f'
                          % (name, m, t['path'], w, share))
                    drawn_somewhere.add(t['path'])
            elif t[m] > 0:
                # Too small for its share: still drawn, as a 1 px sliver.
                ok = check(t['path'] in got, '%s/%s: top-level %r (%d, %.2f px) is not drawn'
                           % (name, m, t['path'], t[m], share))
                if ok:
                    drawn_somewhere.add(t['path'])
                    check(got[t['path']][1] <= 1.01, '%s/%s: sliver %r is %.1f px wide'
                          % (name, m, t['path'], got[t['path']][1]))
        for path, (v, w) in got.items():
            layer = next((l for l in doc['layers'] if l['path'] == path), None)
            check(layer is not None and layer[m] == v,
                  '%s/%s: box %r shows %r, not a layer value' % (name, m, path, v))
    for t in top:
        check(t['path'] in drawn_somewhere or all(t[m] == 0 for m in METRICS),
              '%s: top-level %r is drawn under no metric' % (name, t['path']))
    changed = [m for m in METRICS[1:] if drawings[m] != drawings['macs']]
    check(changed, '%s: switching the metric never changed the drawing' % name)
    page.eval('document.querySelector(\'#metric [data-key="macs"]\').click()')

    # The numbers of a few layers, raw, found through the search box.
    layers = doc['layers']
    picks = [layers[0]]
    leaves = [l for l in layers if l['children'] == 0]
    if leaves:
        picks.append(max(leaves, key=lambda l: l['macs']))
        picks.append(max(leaves, key=lambda l: l['depth']))
        picks.append(leaves[len(leaves) // 2])
    # A layer whose spatial axes are gone and one that also sees global
    # context, where there are such.
    for kind in ('whole', 'global_context'):
        picks += [l for l in layers if l['rf'] and l['rf'][kind]
                  and not (kind == 'global_context' and l['rf']['whole'])][:1]
    page.eval('document.querySelector(\'#numbers [data-key="raw"]\').click()')
    for l in picks:
        q = l['path'] or doc['model']['name']
        page.eval('(function(){var s=document.getElementById("search"); s.value=%s;'
                  's.dispatchEvent(new Event("input"));})()' % json.dumps(q))
        cells = page.eval('''(function(){var r=Array.from(document.querySelectorAll(".tr")).find(
            function(r){return r.dataset.path === %s;});
            if(!r) return null; var o={};
            r.querySelectorAll(".td[data-key]").forEach(function(c){o[c.dataset.key]=c.textContent;});
            o.name=r.querySelector(".name").textContent; return o;})()''' % json.dumps(l['path']))
        if not check(cells, '%s: layer %r is not in the table after searching %r' % (name, l['path'], q)):
            continue
        check(cells['name'].endswith(l['name']), '%s: row %r is named %r' % (name, l['path'], cells['name']))
        if 'macs_unmasked' in doc['totals'] and \
                doc['totals']['macs_unmasked'] != doc['totals']['macs']:
            for key, dense in (('macs_unmasked', 'macs'), ('flops_unmasked', 'flops')):
                want = l.get(key, l[dense])  # absent: equal (docs/json.md)
                check(cells.get(key, '').replace(',', '') == str(want),
                      '%s: %r %s shows %r, the JSON says %d'
                      % (name, l['path'], key, cells.get(key), want))
        for key, jkey in CELLS.items():
            shown = cells[key].replace(',', '')
            check(shown == str(l[jkey]), '%s: %r %s shows %r, the JSON says %d'
                  % (name, l['path'], key, cells[key], l[jkey]))
        check(cells['shape'] == shape_text(l['output']), '%s: %r shape %r != %r'
              % (name, l['path'], cells['shape'], shape_text(l['output'])))
        check(cells['type'] == l['type'], '%s: %r type %r != %r' % (name, l['path'], cells['type'], l['type']))
        for key, jkey in (('rf', 'field'), ('stride', 'stride'), ('pad', 'padding')):
            check(cells[key] == rf_text(l['rf'], jkey), '%s: %r %s shows %r, the JSON %r'
                  % (name, l['path'], key, cells[key], l['rf']))
    page.eval('(function(){var s=document.getElementById("search"); s.value="";'
              's.dispatchEvent(new Event("input"));})()')
    page.eval('document.querySelector(\'#numbers [data-key="clever"]\').click()')

    # Collapsing to depth 1 and expanding everything.
    rows_all = page.eval('document.querySelector(\'#depth [data-key="all"]\').click(); '
                         'document.querySelector(".count").textContent')
    check(rows_all.startswith('%d of' % len(layers)), '%s: expanding all shows %r' % (name, rows_all))
    rows_1 = page.eval('document.querySelector(\'#depth [data-key="1"]\').click(); '
                       'document.querySelector(".count").textContent')
    check(rows_1.startswith('%d of' % (1 + len(top))), '%s: depth 1 shows %r' % (name, rows_1))

    # Sorting by MACs orders each parent's children by MACs, largest
    # first (ties keep the model's order), and again ascending.
    for direction in ('descending', 'ascending'):
        shown = page.eval('''(function(){document.querySelector('.th[data-key="macs"]').click();
            return [document.querySelector('.th[data-key="macs"]').getAttribute("aria-sort"),
                    Array.from(document.querySelectorAll(".tr")).slice(1).map(function(r){
                      return r.dataset.path;})];})()''')
        want = sorted(top, key=lambda t: -t['macs'] if direction == 'descending' else t['macs'])
        check(shown[0] == direction and shown[1] == [t['path'] for t in want],
              '%s: sorted %s by MACs shows %r' % (name, direction, shown))

    # Clicking a top-level box zooms into it: it fills the width.
    biggest = max(top, key=lambda t: t['macs'])
    if biggest['macs'] > 0:
        w = page.eval('''(function(){var g=Array.from(document.querySelectorAll("svg.icicle g.box")).find(
            function(g){return g.dataset.path === %s;}); g.dispatchEvent(new MouseEvent("click", {bubbles: true}));
            var z=Array.from(document.querySelectorAll("svg.icicle g.box")).find(
            function(g){return g.dataset.path === %s;});
            return +z.querySelector("rect").getAttribute("width");})()''' % (
            json.dumps(biggest['path']), json.dumps(biggest['path'])))
        check(abs(w - width) <= 1.5, '%s: zoomed into %r, it is %.1f px of %.1f' % (name, biggest['path'], w, width))
        page.eval('document.querySelector(".crumb").click()')  # back out
        check(page.eval('document.querySelectorAll("svg.icicle g.box")[0].dataset.path') == '',
              '%s: the breadcrumb did not zoom back out' % name)

    # The notes name every op that was not counted and, when a symbol
    # was taken as 1, every symbol.
    notes = ' '.join(page.eval('Array.from(document.querySelectorAll(".notes li")).map('
                               'function(l){return l.textContent;})') or [])
    for o in doc['uncounted_ops']:
        check(o['op_type'] in notes and 'Not counted' in notes,
              '%s: no note for uncounted %s in %r' % (name, o['op_type'], notes))
    if doc['symbols_taken_as_1']:
        for sym in doc['symbols']:
            check(sym in notes, '%s: no note for symbol %r taken as 1' % (name, sym))
    if not doc['totals']['complete']:
        check(page.eval('document.querySelector(".total-value").parentNode.parentNode'
                        '.textContent.indexOf("≥") >= 0'),
              '%s: incomplete totals not shown as lower bounds' % name)

    # The memory curve marks the reported peak.
    live = doc['memory']['live_bytes']
    peak = page.eval('(function(){var c=document.querySelector("svg.curve circle.peak");'
                     'return c && [+c.dataset.position, +c.dataset.value];})()')
    check(peak == [doc['memory']['peak_position'], doc['totals']['peak_activation_bytes']]
          and max(live) == doc['totals']['peak_activation_bytes'],
          '%s: the curve marks %r, the JSON peak is %d at %r'
          % (name, peak, doc['totals']['peak_activation_bytes'], doc['memory']['peak_position']))

    page.b.pump(0.2)
    problems = page.problems()
    check(not problems, '%s: console errors or requests: %s' % (name, problems))
    shot = os.path.join(shots, name + '.png')
    page.screenshot(shot)
    print('%s: %s (%d bytes), screenshot %s' % (name, html, os.path.getsize(html), shot))


def check_table(page, html, names, paths, nnscan):
    page.open('file://' + html)
    err = page.eval('document.body.dataset.error || ""')
    if not check(not err, 'table page failed: %s' % err):
        return
    got = page.eval('''(function(){var o={pts:[],labels:[]};
        document.querySelectorAll(".plot-host circle[data-i]").forEach(function(c){o.pts.push(+c.dataset.i);});
        document.querySelectorAll(".plot-host text[data-i]").forEach(function(t){
          var b=t.getBoundingClientRect(); o.labels.push([t.textContent,b.left,b.top,b.right,b.bottom]);});
        o.rows=document.querySelectorAll("table.models tbody tr").length; return o;})()''')
    check(sorted(got['pts']) == list(range(len(names))), 'table page: points %r' % got['pts'])
    check(sorted(l[0] for l in got['labels']) == sorted(names), 'table page: labels %r' % got['labels'])
    check(got['rows'] == len(names), 'table page: %d rows' % got['rows'])
    # The RF column: each model's field from its own summary JSON, with
    # "+g" when it also depends on global context.
    shown = page.eval('''(function(){var o={};
        document.querySelectorAll("table.models tbody tr").forEach(function(r){
          o[r.cells[0].textContent]=r.cells[r.cells.length-1].textContent;}); return o;})()''')
    for n, path in zip(names, paths):
        rf = json.loads(run(nnscan, 'summary', path, '--format', 'json'))['totals']['rf']
        check(shown.get(n) == rf_text(rf, 'field'), 'table page: %s RF shows %r, its summary %r'
              % (n, shown.get(n), rf))
    ls = got['labels']
    for i in range(len(ls)):
        for j in range(i + 1, len(ls)):
            a, b = ls[i], ls[j]
            overlap = a[1] < b[3] and b[1] < a[3] and a[2] < b[4] and b[2] < a[4]
            check(not overlap, 'table page: labels %r and %r overlap as drawn' % (a[0], b[0]))
    page.b.pump(0.2)
    problems = page.problems()
    check(not problems, 'table page: console errors or requests: %s' % problems)


def conv_model(path, channels, extra=False):
    """x[1,3,8,8] -> conv (3x3, pad 1, `channels` out) -> relu [-> conv2
    1x1 back to `channels`]: two of these differ in one layer's size, and
    `extra` adds a layer."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    import numpy as np
    inits = [numpy_helper.from_array(np.zeros((channels, 3, 3, 3), np.float32), 'conv.weight')]
    nodes = [helper.make_node('Conv', ['x', 'conv.weight'], ['c'], name='/conv/Conv',
                              pads=[1, 1, 1, 1], kernel_shape=[3, 3]),
             helper.make_node('Relu', ['c'], ['r' if extra else 'y'], name='/relu/Relu')]
    if extra:
        inits.append(numpy_helper.from_array(np.zeros((channels, channels, 1, 1), np.float32),
                                             'conv2.weight'))
        nodes.append(helper.make_node('Conv', ['r', 'conv2.weight'], ['y'], name='/conv2/Conv',
                                      kernel_shape=[1, 1]))
    g = helper.make_graph(nodes, 'convs',
                          [helper.make_tensor_value_info('x', TensorProto.FLOAT, [1, 3, 8, 8])],
                          [helper.make_tensor_value_info('y', TensorProto.FLOAT, [1, channels, 8, 8])],
                          initializer=inits)
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid('', 17)]), path)


def check_diff(page, nnscan, tmp, out):
    """`nnscan diff A B --format html`: before and after side by side. conv
    grows from 8 to 16 output channels (MACs 8*3*3*3*64 = 13,824 and
    27,648, worked out here) and conv2 is added; every row of the layers
    table is the document's, and the totals' MACs are the hand figures."""
    a, b = os.path.join(tmp, 'diff_a.onnx'), os.path.join(tmp, 'diff_b.onnx')
    conv_model(a, 8)
    conv_model(b, 16, extra=True)
    html = os.path.join(out, 'diff.html')
    run(nnscan, 'diff', a, b, '--format', 'html', '-o', html)
    kind, _, doc = embedded(html)
    check(kind == 'nnscan.diff', 'diff page: kind %r' % kind)
    page.open('file://' + html)
    err = page.eval('document.body.dataset.error || ""')
    if not check(not err, 'diff page failed: %s' % err):
        return
    rows = page.eval('''Array.from(document.querySelectorAll("table.diff-layers tbody tr")).map(
        function (r) { return [r.className, r.dataset.path].concat(Array.from(r.cells).slice(4)
          .map(function (c) { return c.textContent; })); })''')
    want = [['chg', r['path']] for r in doc['changed']] + [['add', r['path']] for r in doc['added']] + \
        [['rem', r['path']] for r in doc['removed']]
    check([r[:2] for r in rows] == want, 'diff page: rows %r, document %r' % (rows, want))
    conv = [r for r in rows if r[1] == 'conv']
    check(conv and conv[0][2:4] == ['13,824', '27,648'],
          'diff page: conv MACs %r, by hand 13,824 -> 27,648' % conv)
    check(conv and conv[0][4].startswith('+13,824 (+100.00%)'),
          'diff page: conv delta %r' % (conv and conv[0][4]))
    check(['add', 'conv2'] in [r[:2] for r in rows], 'diff page: conv2 not shown as added')
    tot = page.eval('''Array.from(document.querySelectorAll("table.diff-totals tr[data-metric=macs] td"))
        .map(function (c) { return c.textContent; })''')
    # after: conv 27,648 + conv2 16*16*64 = 16,384
    check(tot[1:3] == ['13,824', '44,032'], 'diff page: total MACs %r' % tot)
    page.b.pump(0.2)
    problems = page.problems()
    check(not problems, 'diff page: console errors or requests: %s' % problems)
    page.screenshot(os.path.join(out, 'diff.png'))


def check_inspect(page, summary_html, out):
    """The viewer's nnscan.inspect adapter: a page carrying a hand-written
    inspection (tests/html/inspect_sample.json, valid against the inspect
    schema), made as nns__html_page() makes one: the summary page with its
    data block replaced."""
    import re
    doc = json.load(open(os.path.join(HERE, 'inspect_sample.json')))
    text = open(summary_html, encoding='utf-8').read()
    block = json.dumps(doc).replace('<', '\\u003c')
    text, n = re.subn(r'data-kind="nnscan.summary" data-encoding="json">\n.*?\n</script>',
                      lambda m: 'data-kind="nnscan.inspect" data-encoding="json">\n' + block + '\n</script>',
                      text, count=1, flags=re.S)
    check(n == 1, 'inspect: could not replace the data block')
    html = os.path.join(out, 'inspect.html')
    with open(html, 'w', encoding='utf-8') as f:
        f.write(text)
    check_inspect_page(page, html, doc, out, 'inspect')


def check_inspect_ranks(page, summary_html, out):
    """Issue 43: an inspection of two ranks (the sample, its passes run
    again on rank 1, which is slower in every forward and as fast in
    every backward) has a Ranks table, a row per rank with the JSON's
    numbers (per pass of the rank), and a Slowest rank column ("1/0")."""
    import copy
    import re
    doc = copy.deepcopy(json.load(open(os.path.join(HERE, 'inspect_sample.json'))))
    doc['ranks'] = 2
    doc['passes'] += [dict(p, rank=1) for p in doc['passes']]
    kinds = ('all_gather', 'reduce_scatter', 'all_reduce', 'all_to_all')
    doc['per_rank'] = [
        {'rank': 0, 'passes': 2, 'forward_ms': 13.0, 'backward_ms': 21.0,
         'forward_alloc_bytes': 4096, 'backward_alloc_bytes': 8192, 'collectives': None, 'counts': None},
        {'rank': 1, 'passes': 2, 'forward_ms': 26.0, 'backward_ms': 21.0,
         'forward_alloc_bytes': 4096, 'backward_alloc_bytes': 8192,
         'collectives': {'bytes_total': 3 << 20, 'bytes': dict(zip(kinds, (2 << 20, 1 << 20, 0, 0))),
                         'calls': dict(zip(kinds, (8, 4, 0, 0)))},
         'counts': {'world_size': 2, 'mesh': {'fsdp': 2}, 'estimate': False, 'params': 1000,
                    'param_bytes': 4000, 'grad_bytes': 4000, 'optimizer_bytes': 8016,
                    'saved_bytes': 5 << 20, 'train_peak_bytes': 7 << 20, 'flops': 10 ** 6,
                    'macs': 5 * 10 ** 5, 'comm_bytes': 3 << 19, 'comm': dict(zip(kinds, (1 << 20, 1 << 19, 0, 0)))}}]
    for mo in doc['modules']:
        mo['ranks']['count'] = 2
        mo['ranks']['slowest'] = {'forward': 1, 'backward': 0}
    text = open(summary_html, encoding='utf-8').read()
    block = json.dumps(doc).replace('<', '\\u003c')
    text, n = re.subn(r'data-kind="nnscan.summary" data-encoding="json">\n.*?\n</script>',
                      lambda m: 'data-kind="nnscan.inspect" data-encoding="json">\n' + block + '\n</script>',
                      text, count=1, flags=re.S)
    check(n == 1, 'inspect ranks: could not replace the data block')
    html = os.path.join(out, 'inspect_ranks.html')
    with open(html, 'w', encoding='utf-8') as f:
        f.write(text)
    page.open('file://' + html)
    err = page.eval('document.body.dataset.error || ""')
    if not check(not err, 'inspect ranks: the page failed: %s' % err):
        return
    rows = page.eval('''Array.from(document.querySelectorAll("#rank-rows tbody tr")).map(function (r) {
        return [r.dataset.rank].concat(Array.from(r.querySelectorAll("td")).map(function (c) {
          return c.dataset.value; })); })''')
    check(len(rows) == 2, 'inspect ranks: %d rank rows' % len(rows))
    for got, want in zip(rows, doc['per_rank']):
        p, k, c = want['passes'], want['counts'], want['collectives']
        expect = [str(want['rank']), str(want['rank']), str(p), want['forward_ms'] / p, want['backward_ms'] / p,
                  want['forward_alloc_bytes'] / p, c['bytes_total'] / p if c else '',
                  k['train_peak_bytes'] if k else '', k['param_bytes'] if k else '',
                  k['comm_bytes'] if k else '']
        for i, (g, e) in enumerate(zip(got, expect)):
            ok = g == '' if e == '' else (g == e if isinstance(e, str) else abs(float(g) - e) < 1e-9)
            check(ok, 'inspect ranks: rank %s cell %d is %r, JSON %r' % (want['rank'], i, g, e))
    page.eval('document.querySelector(\'#depth [data-key="all"]\').click()')
    slow = page.eval('''Array.from(document.querySelectorAll(".tr")).map(function (r) {
        var c = r.querySelector('.td[data-key="slowest"]'); return c ? c.textContent : null; })''')
    check(slow and all(v == '1/0' for v in slow), 'inspect ranks: Slowest rank cells %r' % slow)
    page.b.pump(0.2)
    problems = page.problems()
    check(not problems, 'inspect ranks: console errors or requests: %s' % problems)
    page.screenshot(os.path.join(out, 'inspect_ranks.png'))


def check_inspect_page(page, html, doc, out, tag):
    """An nnscan.inspect page shows what its document says: the depth-1
    modules' forward time per pass as icicle boxes of their share, a row
    per module with its time and calls, the first NaN/Inf as a note."""
    page.open('file://' + html)
    err = page.eval('document.body.dataset.error || ""')
    if not check(not err, '%s: the page failed: %s' % (tag, err)):
        return
    passes = len(doc['passes'])
    got = {p: (v, w) for p, v, w in boxes(page)}
    width = page.eval('document.querySelector("svg.icicle").width.baseVal.value')
    root = doc['modules'][0]
    for mo in doc['modules'][1:]:
        if mo['depth'] != 1:
            continue
        share = width * mo['forward']['inclusive_ms'] / root['forward']['inclusive_ms']
        ok = check(mo['path'] in got, tag + ': module %r not drawn' % mo['path'])
        if ok:
            v, w = got[mo['path']]
            check(abs(v - mo['forward']['inclusive_ms'] / passes) < 1e-9,
                  tag + ': %r drawn with %r ms per pass' % (mo['path'], v))
            check(abs(w - share) <= 1.5, tag + ': %r is %.1f px, share %.1f' % (mo['path'], w, share))
    page.eval('document.querySelector(\'#depth [data-key="all"]\').click();'
              'document.querySelector(\'#numbers [data-key="raw"]\').click()')
    cells = page.eval('''Array.from(document.querySelectorAll(".tr")).map(function(r){
        var o={path:r.dataset.path}; r.querySelectorAll(".td[data-key]").forEach(function(c){
        o[c.dataset.key]=c.textContent;}); return o;})''')
    rows = {c['path']: c for c in cells}
    for mo in doc['modules']:
        r = rows.get(mo['path'])
        if not check(r, tag + ': module %r has no row' % mo['path']):
            continue
        check(r['latency_ms'] == '%.3f' % (mo['forward']['inclusive_ms'] / passes),
              tag + ': %r Fwd ms shows %r' % (mo['path'], r['latency_ms']))
        check(r['calls'].replace(',', '') == str(mo['calls']), tag + ': %r calls %r' % (mo['path'], r['calls']))
    notes = page.eval('Array.from(document.querySelectorAll(".notes li")).map(function(l){return l.textContent;})')
    if doc.get('roofline'):  # against the roofline: the JSON's figures
        for mo in doc['modules']:
            r = rows.get(mo['path']) or {}
            if mo.get('roofline_ms'):
                check(r.get('roofline_ms') == '%.3f' % mo['roofline_ms'],
                      tag + ': %r Roof ms shows %r, JSON %r' % (mo['path'], r.get('roofline_ms'),
                                                               mo['roofline_ms']))
            if mo.get('roof_fraction') is not None:
                want = '%s%%' % float('%.3g' % (100 * mo['roof_fraction']))
                got = r.get('roof_fraction', '')
                tiny = 100 * mo['roof_fraction'] < 0.01  # "<0.01%", never an exponent
                check(got == '<0.01%' if tiny else
                      got and abs(float(got.rstrip('%')) - 100 * mo['roof_fraction'])
                      <= 0.006 * 100 * mo['roof_fraction'],
                      tag + ': %r %% roof shows %r, JSON %s' % (mo['path'], got, want))
        far = doc['modules'][doc['roofline']['furthest'][0]]
        check(any('Furthest from their roof' in n and (far['path'] or '(model)') in n for n in notes),
              tag + ': no furthest-from-roof note naming %r in %r' % (far['path'], notes))
    first = doc['first_nonfinite']['forward']
    if first:
        check(any(first['path'] in n and first['role'] in n for n in notes),
              tag + ': no first-NaN note for %r in %r' % (first['path'], notes))
    page.b.pump(0.2)
    problems = page.problems()
    check(not problems, tag + ': console errors or requests: %s' % problems)
    page.screenshot(os.path.join(out, tag + '.png'))


def check_inspect_readable(page, html, doc, out):
    """Issue 17: at 1400 px the NaN/Inf column is in view; module classes
    get distinct colours (Conv2d and MaxPool2d, BatchNorm2d and Linear
    collided); static counts show as FLOPs, MACs and FLOP/s columns, the
    FLOP/s being the document's FLOPs over its forward time."""
    page.call('Emulation.setDeviceMetricsOverride',
              {'width': 1400, 'height': 900, 'deviceScaleFactor': 1, 'mobile': False})
    try:
        page.open('file://' + html)
        right = page.eval('document.querySelector(\'.th[data-key="nonfinite"]\')'
                          '.getBoundingClientRect().right')
        check(right is not None and right <= 1400,
              'inspect_live: NaN/Inf column ends at %r px, past 1400' % right)
        legend = page.eval('''Array.from(document.querySelectorAll(".legend .leg")).map(function(l){
            return [l.textContent, getComputedStyle(l.querySelector("i")).backgroundColor];})''')
        colour = dict(legend)
        for a, b in (('Conv2d', 'MaxPool2d'), ('BatchNorm2d', 'Linear')):
            check(a in colour and b in colour and colour[a] != colour[b],
                  'inspect_live: %s and %s share a colour (%r)' % (a, b, legend))
        check(len(set(colour.values())) == len(colour),
              'inspect_live: two classes share a colour: %r' % legend)
        heads = page.eval('Array.from(document.querySelectorAll(".th")).map(function(h){return h.dataset.key;})')
        for k in ('flops', 'macs', 'flops_rate'):
            check(k in heads, 'inspect_live: no %s column (%r)' % (k, heads))
        page.eval('document.querySelector(\'#depth [data-key="all"]\').click();'
                  'document.querySelector(\'#numbers [data-key="raw"]\').click()')
        cells = page.eval('''Array.from(document.querySelectorAll(".tr")).map(function(r){
            var o={path:r.dataset.path}; r.querySelectorAll(".td[data-key]").forEach(function(c){
            o[c.dataset.key]=c.textContent;}); return o;})''')
        rows = {c['path']: c for c in cells}
        conv = next(m for m in doc['modules'] if m['type'] == 'Conv2d')
        # Conv2d(3, 8, 3) on 3x3x8x8: 3*8*6*6 outputs of 3*3*3 MACs each.
        check(conv['macs'] == 3 * 8 * 6 * 6 * 27, 'inspect_live: conv MACs %r' % conv['macs'])
        r = rows.get(conv['path'], {})
        check(r.get('macs', '').replace(',', '') == str(conv['macs']),
              'inspect_live: conv MACs cell %r' % r.get('macs'))
        per_pass_ms = conv['forward']['inclusive_ms'] / len(doc['passes'])
        rate = conv['flops'] / (per_pass_ms / 1e3)
        check(r.get('flops_rate', '').replace(',', '') == str(round(rate)),
              'inspect_live: conv FLOP/s cell %r, expected %r' % (r.get('flops_rate'), rate))
        page.screenshot(os.path.join(out, 'inspect_live_1400.png'), full=False)
    finally:
        page.call('Emulation.setDeviceMetricsOverride',
                  {'width': page.b.width, 'height': page.b.height,
                   'deviceScaleFactor': 1, 'mobile': False})


def check_polish_1400(page, name, html, out, wide=False):
    """Issue 41 item 9, in a 1400 px window: every column of the Layers
    table is in view (Flags too: none past the table's right edge), RF's
    cells ("whole") and the column titles are not cut, no card subtitle is
    ellipsised, and nothing scrolls sideways (where a table is wider than
    the window - a roofline's extra columns - one scrollbar, not two)."""
    page.call('Emulation.setDeviceMetricsOverride',
              {'width': 1400, 'height': 900, 'deviceScaleFactor': 1, 'mobile': False})
    try:
        page.open('file://' + html)
        page.eval('document.querySelector(\'#depth [data-key="all"]\').click(); 1')
        r = page.eval('''(function () {
          var tt = document.querySelector(".tt").getBoundingClientRect();
          function cut(sel) {
            return Array.from(document.querySelectorAll(sel)).filter(function (e) {
              return e.scrollWidth > e.clientWidth + 1 || e.scrollHeight > e.clientHeight + 1; })
              .map(function (e) { return e.className + ': ' + e.textContent; }); }
          return {
            past: Array.from(document.querySelectorAll(".th")).filter(function (h) {
              return h.getBoundingClientRect().right > tt.right + 0.5; }).map(function (h) { return h.textContent; }),
            heads: Array.from(document.querySelectorAll(".th")).map(function (h) { return h.dataset.key; }),
            cut: cut(".td.c-rf, .td.c-stride, .td.c-pad, .th, .total-sub, .total-label, .sub"),
            sideways: Array.from(document.querySelectorAll("*")).filter(function (e) {
              var o = getComputedStyle(e).overflowX;
              return (o === "auto" || o === "scroll") && e.scrollWidth > e.clientWidth + 1; })
              .map(function (e) { return e.className; }),
            page: document.documentElement.scrollWidth };
        })()''')
        check('flags' in r['heads'], '%s at 1400 px: no Flags column (%r)' % (name, r['heads']))
        check(wide or not r['past'], '%s at 1400 px: columns past the table\'s edge: %r' % (name, r['past']))
        check(not r['cut'], '%s at 1400 px: cut text: %r' % (name, r['cut'][:8]))
        check(len(r['sideways']) <= (1 if wide else 0) and r['page'] <= 1400,
              '%s at 1400 px: scrolls sideways: %r (page %r px)' % (name, r['sideways'], r['page']))
        page.eval('document.querySelector(".tt").scrollIntoView(); 1')
        page.screenshot(os.path.join(out, name + '_1400.png'), full=False)
    finally:
        page.call('Emulation.setDeviceMetricsOverride',
                  {'width': page.b.width, 'height': page.b.height,
                   'deviceScaleFactor': 1, 'mobile': False})


def check_inspect_modulelist(page, html, doc, out):
    """Issue 41: GPT-2 keeps its blocks in transformer.h, a ModuleList
    never called itself, so it has no time of its own. A container's value
    is the sum of its children's (as on the summary page): the blocks are
    drawn in the icicle, each with its own forward time per pass and as
    wide as its share, transformer.h as the sum of theirs, its row shows
    that sum and a note says why."""
    page.call('Emulation.setDeviceMetricsOverride',
              {'width': 1400, 'height': 900, 'deviceScaleFactor': 1, 'mobile': False})
    try:
        page.open('file://' + html)
        err = page.eval('document.body.dataset.error || ""')
        if not check(not err, 'gpt2: the page failed: %s' % err):
            return
        passes = len(doc['passes'])
        mods = {m['path']: m for m in doc['modules']}
        h = mods.get('transformer.h')
        if not check(h and h['type'] == 'ModuleList' and h['calls'] == 0,
                     'gpt2: transformer.h is not an uncalled ModuleList: %r' % h):
            return
        blocks = [m for m in doc['modules'] if m['parent'] == h['index']]
        check(len(blocks) == 2, 'gpt2: %d blocks under transformer.h' % len(blocks))
        per = {m['path']: m['forward']['inclusive_ms'] / passes for m in blocks}
        # open the icicle on forward time, whatever it opened on
        page.eval('(document.querySelector(\'#metric [data-key="latency_ms"]\') || '
                  '{click: function(){}}).click()')
        got = {p: (v, w) for p, v, w in boxes(page)}
        width = page.eval('document.querySelector("svg.icicle").width.baseVal.value')
        root_ms = doc['modules'][0]['forward']['inclusive_ms'] / passes
        for path, ms in per.items():
            if check(path in got, 'gpt2: block %r not drawn (boxes: %r)' % (path, sorted(got))):
                v, w = got[path]
                check(abs(v - ms) < 1e-9, 'gpt2: %r drawn with %r ms, JSON %r' % (path, v, ms))
                check(abs(w - width * ms / root_ms) <= 1.5,
                      'gpt2: %r is %.1f px, share %.1f' % (path, w, width * ms / root_ms))
        total = sum(per.values())
        if check('transformer.h' in got, 'gpt2: transformer.h not drawn'):
            check(abs(got['transformer.h'][0] - total) < 1e-9,
                  'gpt2: transformer.h drawn with %r, its blocks sum to %r'
                  % (got['transformer.h'][0], total))
        for path in ('transformer.h.0.attn.c_attn', 'transformer.h.1.mlp'):
            check(path in got, 'gpt2: %r not drawn under its block' % path)
        page.eval('document.querySelector(\'#depth [data-key="all"]\').click();'
                  'document.querySelector(\'#numbers [data-key="raw"]\').click()')
        cells = page.eval('''Array.from(document.querySelectorAll(".tr")).map(function(r){
            var o={path:r.dataset.path}; r.querySelectorAll(".td[data-key]").forEach(function(c){
            o[c.dataset.key]=c.textContent;}); return o;})''')
        row = {c['path']: c for c in cells}.get('transformer.h', {})
        check(row.get('latency_ms') == '%.3f' % total,
              'gpt2: transformer.h row shows %r, its blocks sum to %.3f'
              % (row.get('latency_ms'), total))
        notes = page.eval('Array.from(document.querySelectorAll(".notes li")).map('
                          'function(l){return l.textContent;})')
        check(any('transformer.h (ModuleList)' in n and 'never called' in n for n in notes),
              'gpt2: no note on transformer.h being a sum: %r' % notes)
        page.eval('document.querySelector(\'#numbers [data-key="clever"]\').click()')
        page.b.pump(0.2)
        problems = page.problems()
        check(not problems, 'gpt2: console errors or requests: %s' % problems)
        page.screenshot(os.path.join(out, 'inspect_gpt2_1400.png'))
    finally:
        page.call('Emulation.setDeviceMetricsOverride',
                  {'width': page.b.width, 'height': page.b.height,
                   'deviceScaleFactor': 1, 'mobile': False})


def check_roofline(page, name, html, doc, out):
    """`summary --hardware`: the roofline chart has the device's two roofs
    (the JSON's peak and bandwidth), one point per layer with a time, in
    the order of their intensities, none above its roofs; a click on a
    point names its layer and selects it in the table."""
    page.open('file://' + html)
    err = page.eval('document.body.dataset.error || ""')
    if not check(not err, '%s: the page failed: %s' % (name, err)):
        return
    hw = doc['hardware']
    roofs = page.eval('''Array.from(document.querySelectorAll("svg.roofline polyline.roof")).map(
        function (p) { return [p.getAttribute("data-roof"), +p.getAttribute("data-peak"),
                               +p.getAttribute("data-bandwidth")]; })''')
    matrix = [r for r in roofs if r[0] == 'matrix']
    check(len(matrix) == 1 and abs(matrix[0][1] - hw['matrix_peak_flops']) <= 1e-6 * hw['matrix_peak_flops']
          and abs(matrix[0][2] - hw['bandwidth']) <= 1e-6 * hw['bandwidth'],
          '%s: roofline roofs %r, device %r' % (name, roofs, hw))
    want = [l for l in doc['layers'] if l['depth'] > 0 and l['time_s'] > 0
            and l['flops'] > 0 and l['bytes'] > 0]
    pts = page.eval('''Array.from(document.querySelectorAll("svg.roofline circle.roof-point")).map(
        function (c) { return [c.getAttribute("data-path"), +c.getAttribute("cx"), +c.getAttribute("cy")]; })''')
    check(sorted(p[0] for p in pts) == sorted(l['path'] for l in want),
          '%s: %d roofline points, %d layers with a time' % (name, len(pts), len(want)))
    cx = {p[0]: p[1] for p in pts}
    by_i = sorted(want, key=lambda l: l['intensity'])
    check(all(cx[a['path']] <= cx[b['path']] + 1e-6 for a, b in zip(by_i, by_i[1:])),
          '%s: points not ordered by intensity' % name)
    for l in want:  # a layer's time is a sum of nodes' maxima: under its roofs
        perf = l['flops'] / l['time_s']
        roof = min(max(hw['matrix_peak_flops'], hw['other_peak_flops']),
                   hw['bandwidth'] * l['intensity'])
        check(perf <= roof * (1 + 1e-6), '%s: %r above its roof (%g > %g)' % (name, l['path'], perf, roof))
    if not want:
        return
    target = max(want, key=lambda l: l['depth'])['path']
    page.eval('document.querySelector(\'svg.roofline circle.roof-point[data-path="%s"]\')'
              '.dispatchEvent(new MouseEvent("click", {bubbles: true}))' % target)
    picked = page.eval('document.getElementById("roofline-picked").getAttribute("data-path")')
    check(picked == target, '%s: clicked %r, the chart names %r' % (name, target, picked))
    sel = page.eval('(document.querySelector(".tr.selected") || {}).getAttribute ? '
                    'document.querySelector(".tr.selected").getAttribute("data-path") : null')
    check(sel == target, '%s: clicked %r, the table selects %r' % (name, target, sel))
    page.screenshot(os.path.join(out, name + '_roofline.png'))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--nnscan', required=True)
    ap.add_argument('--out', required=True, help='folder for pages and screenshots')
    ap.add_argument('--library', help='libnnscan.so: also check the page of a '
                    'real inspection (nnscan.Inspector.to_html(), needs torch)')
    a = ap.parse_args()
    if not cdp.find_chromium():
        print('chromium is not installed: skipped')
        return 77
    a.out = os.path.abspath(a.out)
    os.makedirs(a.out, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix='nnscan-html-')
    subprocess.run(['/usr/bin/python3', os.path.join(ROOT, 'bench', 'gen_models.py'),
                    '--out', tmp, '--only', 'llama7b'], check=True, stdout=subprocess.DEVNULL)
    hostile = os.path.join(tmp, 'hostile.onnx')
    hostile_model(hostile)
    masked = os.path.join(tmp, 'masked_attention.onnx')
    masked_attention_model(masked)
    models = [('masked_attention', masked),('resnet18', os.path.join(FIXTURES, 'resnet18_op17_fold.onnx')),
              ('vit_b_16', os.path.join(FIXTURES, 'vit_b_16_op17_fold.onnx')),
              ('llama7b_shaped', os.path.join(tmp, 'llama7b_shaped.onnx')),
              ('hostile', hostile),
              ('tiny_tied', os.path.join(ROOT, 'tests', 'report', 'tiny_tied.onnx')),
              # squeeze-excitation: whole layers and fields with "+g"
              ('analyze_se', os.path.join(ROOT, 'tests', 'unit', 'models', 'analyze_se.onnx'))]
    with cdp.Browser() as b:
        page = b.page()
        for name, model in models:
            html = os.path.join(a.out, name + '.html')
            run(a.nnscan, 'summary', model, '--format', 'html', '-o', html)
            doc = json.loads(run(a.nnscan, 'summary', model, '--format', 'json'))
            check_summary(page, name, html, doc, a.out)
            # The table's headers are the text report's, word for word
            # (one table of cells in the library, none typed in the page).
            md = run(a.nnscan, 'summary', model, '--format', 'md', '--columns', 'all')
            md_heads = [c.strip() for c in md.split('\n', 1)[0].strip('|').split('|')]
            page_heads = page.eval('Array.from(document.querySelectorAll(".th[data-key]"))'
                                   '.map(function (h) { return h.textContent; })')
            own = ('Flags', 'Active params', 'FLOPs (mask)', 'MACs (mask)')
            strange = [h for h in page_heads
                       if h.rstrip(' ▲▼') not in md_heads and h.rstrip(' ▲▼') not in own]
            check(not strange, '%s: page headers %r are not the text table\'s %r'
                  % (name, strange, md_heads))
            if name == 'resnet18':
                # The count columns the page has no code for (the library's
                # "number" cells) sit where the page always showed them.
                keys = page.eval('Array.from(document.querySelectorAll(".th[data-key]"))'
                                 '.map(function (h) { return h.dataset.key; })')
                want = ['type', 'shape', 'params', 'buffers', 'flops', 'macs', 'dmas',
                        'activation_bytes', 'rf', 'stride', 'pad', 'pct_params',
                        'pct_macs', 'flags']
                check([k for k in keys if k != 'name'] == want,
                      'resnet18: page columns %r, not %r' % (keys, want))
            if name in ('resnet18', 'llama7b_shaped', 'vit_b_16', 'analyze_se'):
                check_polish_1400(page, name, html, a.out)
            if name == 'hostile':
                check(page.eval('window.pwned === undefined'), 'hostile: a name ran as script')
                shown = page.eval('document.querySelector(\'#depth [data-key="all"]\').click(); '
                                  'Array.from(document.querySelectorAll(".tr .name")).map(function(n){'
                                  'return n.lastChild.textContent;})')
                for l in doc['layers'][1:]:
                    check(l['name'] in shown, 'hostile: layer %r not shown verbatim (%r)' % (l['name'], shown))
        for name, model, extra in (
                ('resnet18_h100', os.path.join(FIXTURES, 'resnet18_op17_fold.onnx'), []),
                ('llama7b_decode_h200', os.path.join(tmp, 'llama7b_shaped.onnx'),
                 ['--input', 'batch=1', '--input', 'seq=1', '--dtype', 'bf16'])):
            hw = 'h200' if 'h200' in name else 'h100-sxm'
            html = os.path.join(a.out, name + '.html')
            run(a.nnscan, 'summary', model, '--hardware', hw, *extra, '--format', 'html', '-o', html)
            doc = json.loads(run(a.nnscan, 'summary', model, '--hardware', hw, *extra,
                                 '--format', 'json'))
            check_roofline(page, name, html, doc, a.out)
            check_polish_1400(page, name, html, a.out, wide=True)  # 19 columns: one scrollbar
        per_rank_page.check_per_rank(page, a.nnscan, run, check, a.out, check_polish_1400)
        check_inspect(page, os.path.join(a.out, 'resnet18.html'), a.out)
        check_inspect_ranks(page, os.path.join(a.out, 'resnet18.html'), a.out)
        check_diff(page, a.nnscan, tmp, a.out)
        if a.library:
            live = os.path.join(a.out, 'inspect_live.html')
            subprocess.run(['/usr/bin/python3', os.path.join(HERE, 'inspect_live.py'), live],
                           check=True, env=dict(os.environ, NNSCAN_LIBRARY=a.library))
            kind, _, doc = embedded(live)
            check(kind == 'nnscan.inspect', 'inspect_live: page kind %r' % kind)
            first = doc['first_nonfinite']['forward']
            check(first['path'] == '6' and first['role'] == 'producer',
                  'inspect_live: first NaN at %r, not the module that makes it' % first)
            check_inspect_page(page, live, doc, a.out, 'inspect_live')
            check_inspect_readable(page, live, doc, a.out)
            gpt2 = os.path.join(a.out, 'inspect_gpt2.html')
            subprocess.run(['/usr/bin/python3', os.path.join(HERE, 'inspect_live.py'), '--gpt2', gpt2],
                           check=True, env=dict(os.environ, NNSCAN_LIBRARY=a.library))
            check_inspect_modulelist(page, gpt2, embedded(gpt2)[2], a.out)
        mobile = ['mobilenet_v2_op11_fold', 'mobilenet_v2_op13_fold', 'mobilenet_v2_op17_fold',
                  'efficientnet_b0_op17_fold', 'resnet18_op17_fold', 'alexnet_op17_fold']
        html = os.path.join(a.out, 'table.html')
        run(a.nnscan, 'table', *[os.path.join(FIXTURES, m + '.onnx') for m in mobile],
            '--format', 'html', '-o', html)
        check_table(page, html, mobile, [os.path.join(FIXTURES, m + '.onnx') for m in mobile],
                    a.nnscan)
        page.screenshot(os.path.join(a.out, 'table.png'))
    if failures:
        print('%d failures' % len(failures))
        return 1
    print('all HTML browser checks passed; screenshots in %s' % a.out)
    return 0


if __name__ == '__main__':
    sys.exit(main())
