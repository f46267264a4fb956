#!/usr/bin/python3
"""Checks `nnscan summary --format json` outputs against the documented
contract: docs/summary.schema.json (JSON Schema 2020-12, validated with
python3-jsonschema; docs/summary.v2.schema.json for schema_version 2) plus
what a schema cannot say: the tree holds exactly
the listed layers in the same order, every parent index points back, the
root's counts are the totals, no layer is deeper than max_depth, and the
memory curve has one point per node, peaks at the reported peak and points
at listed layers.

Usage: check_json.py FILE.json...   (exit 0 when every file passes)
"""
import json
import os
import sys

try:
    import jsonschema
except ImportError:
    sys.exit("check_json.py: python3-jsonschema is missing "
             "(apt-get install python3-jsonschema; tests/run_all.sh installs it)")

HERE = os.path.dirname(os.path.abspath(__file__))
DOCS = os.path.join(HERE, '..', '..', 'docs')
SCHEMAS = {('nnscan.summary', 1): os.path.join(DOCS, 'summary.schema.json'),
           ('nnscan.summary', 2): os.path.join(DOCS, 'summary.v2.schema.json'),
           ('nnscan.diff', 1): os.path.join(DOCS, 'diff.schema.json')}
COUNTS = ('params', 'buffers', 'param_bytes', 'flops', 'macs', 'dmas',
          'activation_bytes', 'nodes', 'flags')


def flatten(node, out):
    out.append(node['info'])
    if node['name'] != node['info']['name']:
        raise AssertionError('tree name %r != info name %r'
                             % (node['name'], node['info']['name']))
    for child in node['children']:
        if child['info']['parent'] != node['info']['index']:
            raise AssertionError('child %r of %r has parent %r'
                                 % (child['name'], node['name'],
                                    child['info']['parent']))
        flatten(child, out)
    return out


def figure(metric):
    """A v2 metric's number: its value, or the known lower bound."""
    return metric.get('value', metric.get('known_value', 0))


def check_v2(doc):
    """Statuses and diagnostics: every id points at a diagnostic; a metric
    that is not complete names at least one, of a code that touches it; a
    layer lists its metrics' diagnostics; complete means every total is."""
    diags = doc['diagnostics']
    for i, d in enumerate(diags):
        if d['id'] != i:
            raise AssertionError('diagnostic %d has id %r' % (i, d['id']))
    for row in doc['layers'] + [doc['totals']]:
        ids = set(row['diagnostics'])
        if any(i >= len(diags) for i in ids):
            raise AssertionError('%r: a diagnostic id past the list'
                                 % row.get('path'))
        for name, m in row['metrics'].items():
            if m['status'] == 'complete':
                continue
            if not m['diagnostics']:
                raise AssertionError('%r %s is %s without a diagnostic'
                                     % (row.get('path'), name, m['status']))
            for i in m['diagnostics']:
                if name not in diags[i]['metrics']:
                    raise AssertionError('%r %s cites %s, which does not touch it'
                                         % (row.get('path'), name,
                                            diags[i]['code']))
                if i not in ids:
                    raise AssertionError('%r %s cites %d, not in the layer\'s list'
                                         % (row.get('path'), name, i))
    t = doc['totals']
    if doc['layers'][0]['metrics'] != t['metrics']:
        raise AssertionError('root metrics != totals metrics')
    if t['complete'] != all(m['status'] == 'complete'
                            for m in t['metrics'].values()):
        raise AssertionError('complete disagrees with the statuses')
    tm = t['metrics']
    if t['params_total'] != (figure(tm['params']) + figure(tm['buffers'])
                             + figure(tm['frozen'])):
        raise AssertionError('params_total != params + buffers + frozen')


def check_diff(doc):
    """A diff: its counts are its lists' lengths; a delta is after - before,
    given exactly where the runs are alike and both sides complete, or
    partial only because symbolic dims were taken as 1 (at_symbols_1)."""
    c = doc['counts']
    for k in ('added', 'removed', 'changed'):
        if c[k] != len(doc[k]):
            raise AssertionError('counts.%s %d, %d listed' % (k, c[k], len(doc[k])))
    pairs = [doc['totals']['metrics']] + [r['metrics'] for r in doc['changed']]
    for metrics in pairs:
        for name, p in metrics.items():
            both = all(p[s]['status'] == 'complete' or p[s].get('at_symbols_1')
                       for s in ('before', 'after'))
            if (p['delta'] is not None) != (both and doc['comparable']):
                raise AssertionError('%s: delta %r with statuses %s, %s, comparable %s'
                                     % (name, p['delta'], p['before']['status'],
                                        p['after']['status'], doc['comparable']))
            def value(m):
                return m['value'] if m['status'] == 'complete' else m['known_value']
            if p['delta'] is not None and \
                    p['delta'] != value(p['after']) - value(p['before']):
                raise AssertionError('%s: delta %d is not after - before' % (name, p['delta']))


def check(doc):
    if doc['schema'] == 'nnscan.diff':
        check_diff(doc)
        return
    layers = doc['layers']
    if doc['schema_version'] == 2:
        check_v2(doc)
    if flatten(doc['tree'], []) != layers:
        raise AssertionError('the tree does not hold the listed layers')
    root = layers[0]
    if root['depth'] != 0 or root['parent'] is not None:
        raise AssertionError('the first layer is not the root')
    for k in (COUNTS if doc['schema_version'] == 1 else ()):
        if root[k] != doc['totals'][k]:
            raise AssertionError('root %s %r != totals %r'
                                 % (k, root[k], doc['totals'][k]))
    index = {l['index']: l for l in layers}
    for l in layers[1:]:
        parent = index.get(l['parent'])
        if parent is None or parent['depth'] != l['depth'] - 1:
            raise AssertionError('layer %r: parent %r is not listed one level up'
                                 % (l['path'], l['parent']))
    depth = doc['options']['max_depth']
    if depth is not None and max(l['depth'] for l in layers) > depth:
        raise AssertionError('a layer is deeper than max_depth %d' % depth)
    t = doc['totals']
    if doc['schema_version'] == 1:
        if t['complete'] != (not t['flags']['partial']
                             and not t['flags']['unbounded']):
            raise AssertionError('complete disagrees with the flags')
        if t['params_total'] != t['params'] + t['buffers']:
            raise AssertionError('params_total != params + buffers')
    mem = doc['memory']
    live = mem['live_bytes']
    if len(live) != doc['model']['nodes'] or len(mem['node_layers']) != len(live):
        raise AssertionError('memory: %d points for %d nodes'
                             % (len(live), doc['model']['nodes']))
    if live:
        if max(live) != t['peak_activation_bytes']:
            raise AssertionError('memory: curve max %d != peak %d'
                                 % (max(live), t['peak_activation_bytes']))
        if mem['peak_position'] != live.index(max(live)):
            raise AssertionError('memory: peak_position is not the first maximum')
        if any(i not in index for i in mem['node_layers']):
            raise AssertionError('memory: a node_layers index is not listed')


def main():
    validators = {}
    for kind, path in SCHEMAS.items():
        with open(path) as f:
            schema = json.load(f)
        jsonschema.Draft202012Validator.check_schema(schema)
        validators[kind] = jsonschema.Draft202012Validator(schema)
    failed = 0
    for path in sys.argv[1:]:
        try:
            with open(path) as f:
                doc = json.load(f)
            validator = validators.get((doc.get('schema'),
                                        doc.get('schema_version')))
            if validator is None:
                raise AssertionError('unknown schema %r version %r'
                                     % (doc.get('schema'),
                                        doc.get('schema_version')))
            errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.path))
            if errors:
                e = errors[0]
                raise AssertionError('schema: %s at /%s (%d errors)'
                                     % (e.message, '/'.join(map(str, e.path)),
                                        len(errors)))
            check(doc)
        except (AssertionError, ValueError, KeyError, TypeError) as e:
            print('%s: %s' % (path, e))
            failed += 1
    sys.exit(1 if failed else 0)


main()
