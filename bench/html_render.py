#!/usr/bin/python3
"""Size and time to first render of the HTML report of a 10,000-layer model.

    /usr/bin/python3 bench/html_render.py --nnscan build/dev/nnscan \
        [--model llama10k] [--runs 7] [--models-dir bench/models]

Generates the model with bench/gen_models.py when it is missing (llama10k:
the LLaMA-shaped decoder with 714 decoder layers, 10,002 layers in the
module tree, 86,417 nodes), writes `nnscan summary MODEL --format html`,
and opens the page in headless chromium (offline, over the DevTools pipe of
tests/html/cdp.py) once per run, each run in a fresh tab. Reported, as
medians over the runs:

  - write: wall time of `nnscan summary --format html` (fresh process);
  - page bytes, and the embedded JSON document's size before compression;
  - open -> rendered: from the navigation command until the page marks
    itself rendered (data-rendered), as the test harness sees it;
  - script -> rendered: what the page measured itself, from the start of
    its script (after HTML parsing) to the end of the first render, and
    its phases: read (base64 + inflate), parse (JSON.parse), adapt (the
    generic tree), draw (icicle, op types, curve, table);
  - a metric switch: clicking another metric and redrawing the icicle;
  - expand all: opening all 10,002 rows of the (virtualised) table.

Timings depend on the machine and its load: compare runs on one machine.
"""
import argparse
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', 'tests', 'html'))
import cdp  # noqa: E402

FILES = {'llama10k': 'llama10k_shaped.onnx', 'llama7b': 'llama7b_shaped.onnx',
         'graph100k': 'graph100k.onnx'}


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--nnscan', required=True)
    ap.add_argument('--model', default='llama10k', choices=sorted(FILES))
    ap.add_argument('--runs', type=int, default=7)
    ap.add_argument('--models-dir', default=os.path.join(HERE, 'models'))
    a = ap.parse_args()
    model = os.path.abspath(os.path.join(a.models_dir, FILES[a.model]))
    if not os.path.exists(model):
        subprocess.run(['/usr/bin/python3', os.path.join(HERE, 'gen_models.py'),
                        '--out', a.models_dir, '--only', a.model], check=True)
    page = os.path.abspath(os.path.join(a.models_dir, a.model + '.html'))
    writes = []
    for _ in range(a.runs):
        t0 = time.perf_counter()
        subprocess.run([a.nnscan, 'summary', model, '--format', 'html', '-o', page], check=True)
        writes.append(time.perf_counter() - t0)
    json_bytes = len(subprocess.run([a.nnscan, 'summary', model, '--format', 'json'],
                                    check=True, stdout=subprocess.PIPE).stdout)
    size = os.path.getsize(page)

    opened, scripted, switch, expand, phases = [], [], [], [], []
    with cdp.Browser() as b:
        for _ in range(a.runs):
            p = b.page()
            opened.append(p.open('file://' + page))
            err = p.eval('document.body.dataset.error || ""')
            if err:
                sys.exit('the page failed: ' + err)
            scripted.append(float(p.eval('document.body.dataset.renderMs')) / 1000)
            phases.append(p.eval('document.body.dataset.phases'))
            switch.append(p.eval('''(function(){var t=performance.now();
                document.querySelector('#metric [data-key="params"]').click();
                return (performance.now()-t)/1000;})()'''))
            expand.append(p.eval('''(function(){var t=performance.now();
                document.querySelector('#depth [data-key="all"]').click();
                return (performance.now()-t)/1000;})()'''))
            rows = p.eval('document.querySelector(".count").textContent')
            b.call('Target.closeTarget', {'targetId': p.target})
    med = statistics.median
    print('model: %s (%s)' % (a.model, model))
    print('table rows after expand all: %s' % rows)
    print('page: %d bytes (%.2f MB); JSON document: %d bytes (%.1f MB)'
          % (size, size / 1e6, json_bytes, json_bytes / 1e6))
    print('median of %d runs:' % a.runs)
    print('  nnscan summary --format html : %7.1f ms' % (1000 * med(writes)))
    print('  open -> rendered (harness)   : %7.1f ms' % (1000 * med(opened)))
    print('  script -> rendered (page)    : %7.1f ms' % (1000 * med(scripted)))
    names = [kv.split('=')[0] for kv in phases[0].split()]
    for k, name in enumerate(names):
        print('    %-26s : %7.1f ms' % (name, med(float(ph.split()[k].split('=')[1]) for ph in phases)))
    print('  switch metric (icicle)       : %7.1f ms' % (1000 * med(switch)))
    print('  expand all rows (table)      : %7.1f ms' % (1000 * med(expand)))
    return 0


if __name__ == '__main__':
    sys.exit(main())
