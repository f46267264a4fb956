#!/usr/bin/python3
"""Developer tool: score `nnscan shapes` on libonnx-testdata cases.

Runs `nnscan shapes MODEL --format json` on every case whose path matches the
given substrings and compares each graph output's dtype and shape with the
case's expected output_N.pb. Prints one line per case that is not fully
right: WRONG (a known dim or dtype that differs - never acceptable),
PARTIAL (some dims or the dtype unknown), ERROR (nnscan failed).

    /usr/bin/python3 tools/check_cases.py [--nnscan build/nnscan] [FILTER...]

Needs python3-onnx; the test suite itself uses the C runner instead.
"""
import glob, json, os, subprocess, sys
import onnx

ROOT = '/usr/share/libonnx-testdata/data'


def expected(case):
    g = onnx.load(os.path.join(case, 'model.onnx'), load_external_data=False).graph
    outs = []
    for i, o in enumerate(g.output):
        if o.type.WhichOneof('value') != 'tensor_type':
            return None
        t = onnx.TensorProto()
        with open(os.path.join(case, 'test_data_set_0', f'output_{i}.pb'), 'rb') as f:
            t.ParseFromString(f.read())
        dt = t.data_type
        # numpy has no bfloat16: the test data stores it as uint16 where the
        # model declares bfloat16 (tests/conformance does the same).
        if dt == 4 and o.type.tensor_type.elem_type == 16:
            dt = 16
        outs.append((o.name, dt, list(t.dims)))
    return outs


DT = {1: 'float32', 2: 'uint8', 3: 'int8', 4: 'uint16', 5: 'int16', 6: 'int32', 7: 'int64',
      8: 'string', 9: 'bool', 10: 'float16', 11: 'float64', 12: 'uint32', 13: 'uint64',
      14: 'complex64', 15: 'complex128', 16: 'bfloat16'}


def main():
    args = sys.argv[1:]
    nnscan = 'build/nnscan'
    if args[:1] == ['--nnscan']:
        nnscan, args = args[1], args[2:]
    cases = sorted(os.path.dirname(p) for p in glob.glob(ROOT + '/*/*/model.onnx'))
    if args:
        cases = [c for c in cases if any(a in c for a in args)]
    counts = {'ok': 0, 'PARTIAL': 0, 'WRONG': 0, 'ERROR': 0}
    for case in cases:
        exp = expected(case)
        if exp is None:
            continue
        name = os.path.relpath(case, ROOT)
        r = subprocess.run([nnscan, 'shapes', os.path.join(case, 'model.onnx'), '--format', 'json'],
                           capture_output=True, text=True, timeout=60)
        if r.returncode != 0:
            counts['ERROR'] += 1
            print(f'ERROR   {name}: {r.stderr.strip()[:300]}')
            continue
        got = json.loads(r.stdout)['outputs']
        status, why = 'ok', []
        for oname, dt, dims in exp:
            v = got.get(oname, {'dtype': None, 'shape': None})
            if v['dtype'] is not None and v['dtype'] != DT.get(dt):
                status = 'WRONG'; why.append(f'{oname} dtype {v["dtype"]} != {DT.get(dt)}')
            elif v['dtype'] is None:
                status = status if status == 'WRONG' else 'PARTIAL'; why.append(f'{oname} dtype unknown')
            s = v['shape']
            if s is None:
                status = status if status == 'WRONG' else 'PARTIAL'; why.append(f'{oname} rank unknown, want {dims}')
            elif len(s) != len(dims) or any(isinstance(a, int) and a != b for a, b in zip(s, dims)):
                status = 'WRONG'; why.append(f'{oname} shape {s} != {dims}')
            elif any(not isinstance(a, int) for a in s):
                status = status if status == 'WRONG' else 'PARTIAL'; why.append(f'{oname} shape {s}, want {dims}')
        counts[status] += 1
        if status != 'ok':
            print(f'{status:7} {name}: {"; ".join(why)[:300]}')
    print(' '.join(f'{k}={v}' for k, v in counts.items()))


if __name__ == '__main__':
    main()
