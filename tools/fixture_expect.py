#!/usr/bin/python3
"""Writes tests/fixtures/models/<export>.expect from PyTorch's recorded shapes.

For every export of tools/make_fixtures.py, maps each PyTorch module that
ran once to the ONNX value it produced, using only the exporter's node names
(`/layer1/layer1.0/conv1/Conv` belongs to module `layer1.0.conv1`): the
module's output is the output of the last node in its scope. Each line of
the .expect file is

    VALUE_NAME<TAB>d0,d1,...<TAB>MODULE

with the shape PyTorch's forward hook saw (<model>.ref.json). The C test
tests/unit/test_fixtures.c checks nnscan's shapes against these lines, and
that every value of the model gets a fully static shape. Needs python3-onnx;
the test suite never runs this.

    /usr/bin/python3 tools/fixture_expect.py
"""
import glob, json, os
import onnx

DIR = os.path.join(os.path.dirname(__file__), '..', 'tests', 'fixtures', 'models')


def module_of(scope):
    """'/layer1/layer1.0/conv1' -> 'layer1.0.conv1' (torch 1.13 scope names)."""
    path = []
    for seg in scope.strip('/').split('/'):
        if not seg:
            continue
        if path and seg.startswith('.'.join(path) + '.'):
            path = seg.split('.')
        else:
            path.append(seg)
    return '.'.join(path)


def main():
    for ref_path in sorted(glob.glob(os.path.join(DIR, '*.ref.json'))):
        ref = json.load(open(ref_path))
        shapes = {m['name']: m['output_shapes'][0] for m in ref['modules']
                  if m.get('calls') == 1 and len(m['output_shapes']) == 1}
        model = os.path.basename(ref_path)[:-len('.ref.json')]
        for onnx_path in sorted(glob.glob(os.path.join(DIR, model + '_op*.onnx'))):
            g = onnx.load(onnx_path, load_external_data=False).graph
            last = {}
            for n in g.node:
                if '/' not in n.name or not n.output:
                    continue
                scope = n.name.rsplit('/', 1)[0]
                # Every enclosing module's scope ends at this node too.
                parts = [p for p in scope.strip('/').split('/') if p]
                for k in range(1, len(parts) + 1):
                    last[module_of('/'.join(parts[:k]))] = n.output[0]
            # The root module's output is the graph's output.
            last[''] = g.output[0].name
            lines = []
            for mod, value in sorted(last.items()):
                if mod in shapes:
                    dims = ','.join(str(d) for d in shapes[mod])
                    lines.append(f'{value}\t{dims}\t{mod or "(root)"}\n')
            out = onnx_path[:-len('.onnx')] + '.expect'
            with open(out, 'w') as f:
                f.write(f'# {os.path.basename(onnx_path)}: module output shapes '
                        'recorded by PyTorch (tools/fixture_expect.py)\n')
                f.writelines(lines)
            print(f'{os.path.basename(out)}: {len(lines)} modules')


if __name__ == '__main__':
    main()
