/*
 * viewer.js - the script of nnscan's HTML report (src/report/html.c embeds
 * it, with viewer.css, into every page; docs/html.md).
 *
 * The page carries one JSON document (<script id="nnscan-data">). An
 * adapter per document kind turns it into a generic view - a tree of
 * {name, path, type, family, metrics, cells, children}, the metrics the
 * icicle can size by, the table's columns, a curve, totals and notes - and
 * the renderers below know only that view. Showing the inspector's
 * "nnscan.inspect" documents is one more adapter in ADAPTERS.
 *
 * Hand-written, no library: the page must work offline from one file, and
 * an icicle, a line chart and a virtualised table are a few hundred lines
 * of DOM and SVG code, smaller than any charting library and with nothing
 * to vendor or update. Large trees stay fast: the icicle draws only boxes
 * at least half a pixel wide, the table renders only the rows in view, and
 * the curve is reduced to one min/max pair per pixel column.
 */
(function () {
  'use strict';

  var SVGNS = 'http://www.w3.org/2000/svg';
  var T0 = performance.now();

  /* ==== Small helpers ==== */

  function el(tag, attrs, kids) {
    var e = document.createElement(tag);
    for (var k in attrs || {}) {
      if (k === 'text') e.textContent = attrs[k];
      else if (k === 'cls') e.className = attrs[k];
      else if (k.slice(0, 2) === 'on') e.addEventListener(k.slice(2), attrs[k]);
      else e.setAttribute(k, attrs[k]);
    }
    (kids || []).forEach(function (c) {
      if (c != null) e.appendChild(typeof c === 'string' ? document.createTextNode(c) : c);
    });
    return e;
  }

  function svg(tag, attrs) {
    var e = document.createElementNS(SVGNS, tag);
    for (var k in attrs || {}) e.setAttribute(k, attrs[k]);
    return e;
  }

  /* Numbers as nnscan prints them: "1.82 G" (three significant digits),
   * bytes in IEC units ("44.6 MiB"), or raw with thousands separators. */
  function fmtClever(v, unit) {
    if (v == null || isNaN(v)) return '–';
    if (unit === 'ms') {
      /* a human scale, as the text tables: "135 ms", "68.0 us", "412 ns" */
      return v === 0 ? '0' : v < 0 ? '-' + fmtSeconds(-v / 1000) : fmtSeconds(v / 1000);
    }
    var bytes = unit === 'bytes', base = bytes ? 1024 : 1000;
    var units = bytes ? ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB', 'EiB']
                      : ['', 'k', 'M', 'G', 'T', 'P', 'E'];
    var a = Math.abs(v), i = 0;
    while (a >= base * 0.9995 && i < units.length - 1) { a /= base; i++; }
    var s = i === 0 ? String(Math.round(a))
                    : a >= 99.95 ? a.toFixed(0) : a >= 9.995 ? a.toFixed(1) : a.toFixed(2);
    return (v < 0 ? '-' : '') + s + (units[i] ? ' ' + units[i] : (bytes ? ' B' : ''));
  }
  function fmtRaw(v) {
    if (v == null || isNaN(v)) return '–';
    return Math.round(v).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  }
  function fmtSeconds(s) {
    if (!(s > 0)) return '–';
    var u = s >= 1 ? [1, 's'] : s >= 1e-3 ? [1e-3, 'ms'] : s >= 1e-6 ? [1e-6, 'us'] : [1e-9, 'ns'];
    var v = s / u[0];
    /* 999.7 us reads 1.00 ms (nns__fmt_seconds rounds the same way) */
    if (v >= 999.5 && u[1] !== 's') { v /= 1000; u = {ns: [0, 'us'], us: [0, 'ms'], ms: [0, 's']}[u[1]]; }
    return (u[1] === 's' && v >= 999.5 ? v.toFixed(0) : v.toPrecision(3)) + ' ' + u[1];
  }
  /* A fraction as the text table prints it (nns__inspect_pct): "12.3%",
   * "<0.01%", never an exponent. */
  function fmtShare(f) {
    var p = 100 * f;
    return p > 0 && p < 0.01 ? '<0.01%' : (p >= 999.5 ? p.toFixed(0) : p.toPrecision(3)) + '%';
  }
  function fmtPct(v, total) {
    return total > 0 ? (100 * v / total).toFixed(2) + '%' : '–';
  }

  /* Op families (the src/ops/ tables) and their colours. The families are
   * the document's ("families", the library's list, and each op type's
   * family and FLOPs: learnFamilies), never a list kept here: one hue per
   * family by its index in that list (so a family keeps its colour from
   * one report to the next); greys for the families whose ops in this
   * model do no arithmetic (data movement: shapes, gathers, generated
   * constants, sequences). */
  var FAMILY_HUES = ['#9c755f', '#76b7b2', '#4e79a7', '#f28e2b', '#59a14f', '#edc948',
                     '#b07aa1', '#86bcb6', '#a0cbe8', '#bab0ac', '#8cd17d', '#499894',
                     '#f1ce63', '#79706e', '#d37295', '#ff9da7', '#fabfd2', '#e15759'];
  /* (in the table's order: eltwise, activation, conv, pool, gemm, norm,
   * reduce, ...; the reds last, since red marks NaN/Inf and the peak) */
  var MOVEMENT_GREYS = ['#c9c9c9', '#b5b5b5', '#d4d4d4', '#a5a5a5'];
  var FAMILY_COLOURS = {unknown: '#8f8f8f'};
  var MOVEMENT = {};
  function learnFamilies(families, opTypes) {
    var flops = {};
    opTypes.forEach(function (o) {
      if (o.family) flops[o.family] = (flops[o.family] || 0) + (o.flops || 0);
    });
    families.forEach(function (f, i) {
      FAMILY_COLOURS[f] = FAMILY_HUES[i % FAMILY_HUES.length];
    });
    Object.keys(flops).sort().filter(function (f) { return !(flops[f] > 0); })
        .forEach(function (f, i) {
          MOVEMENT[f] = 1;
          FAMILY_COLOURS[f] = MOVEMENT_GREYS[i % MOVEMENT_GREYS.length];
        });
  }
  /* Families the op table does not name (an inspection's module classes)
   * take a colour from the same palette by a hash of their name. */
  var PALETTE = ['#4e79a7', '#f28e2b', '#59a14f', '#76b7b2', '#edc948', '#b07aa1',
                 '#9c755f', '#86bcb6', '#a0cbe8', '#8cd17d', '#bab0ac'];  /* no reds: red is NaN */
  FAMILY_COLOURS.nonfinite = '#d7263d';
  /* An inspection's module classes: one colour each, in the order the
   * classes first appear (adaptInspect fills it), from 20 hues apart -
   * a hash put Conv2d and MaxPool2d on one green. */
  var TYPE_PALETTE = ['#4e79a7', '#f28e2b', '#59a14f', '#b07aa1', '#edc948', '#76b7b2',
                      '#9c755f', '#1f77b4', '#bcbd22', '#17becf', '#8c564b', '#e377c2',
                      '#7f7f7f', '#aec7e8', '#ffbb78', '#98df8a', '#c5b0d5', '#c49c94',
                      '#dbdb8d', '#9edae5'];  /* no reds: red is NaN */
  var TYPE_COLOURS = {};
  function familyColour(f) {
    if (FAMILY_COLOURS[f]) return FAMILY_COLOURS[f];
    if (TYPE_COLOURS[f]) return TYPE_COLOURS[f];
    if (!f || f.indexOf('type:') !== 0) return FAMILY_COLOURS.unknown;
    var h = 0;
    for (var i = 0; i < f.length; i++) h = (h * 31 + f.charCodeAt(i)) >>> 0;
    return PALETTE[h % PALETTE.length];
  }

  /* Dark text on light boxes, white on dark ones (relative luminance). */
  function inkOn(hex) {
    var c = parseInt(hex.slice(1), 16), r = c >> 16, g = (c >> 8) & 255, b = c & 255;
    return 0.2126 * r + 0.7152 * g + 0.0722 * b < 140 ? '#ffffff' : '#14181f';
  }

  /* ==== Adapters: a document kind -> the generic view ==== */

  var COUNT_METRICS = [
    {key: 'macs', label: 'MACs', unit: 'count'},
    {key: 'flops', label: 'FLOPs', unit: 'count'},
    {key: 'params', label: 'Params', unit: 'count'},
    {key: 'activation_bytes', label: 'Activation memory', unit: 'bytes'},
    {key: 'dmas', label: 'DMAs', unit: 'count'},
    {key: 'latency_ms', label: 'Latency', unit: 'ms'}
  ];

  function shapeText(v) {
    if (!v) return '–';
    if (!v.shape) return '?';
    return '(' + v.shape.map(function (d) {
      return d == null ? '?' : typeof d === 'string' ? d : String(d);
    }).join(', ') + ')';
  }
  /* Per-axis figures as the text report prints them: "7" when every axis
   * agrees, else "7x5". */
  function axesText(v) {
    return v.every(function (x) { return x === v[0]; }) ? String(v[0]) : v.join('x');
  }
  /* A layer's field, stride or padding cell as the text report has it: a
   * whole value (its spatial axes gone; it keeps their count, with zeros)
   * reads "whole" under RF and "–" under the others; a field that also
   * depends on global context reads "851+g". */
  function rfText(rf, key) {
    if (!rf) return '–';
    if (rf.whole) return key === 'field' ? 'whole' : '–';
    if (!rf.axes) return '–';
    return axesText(rf[key]) + (key === 'field' && rf.global_context ? '+g' : '');
  }
  function flagText(f, rf) {
    var out = ['partial', 'symbolic', 'shared', 'unbounded'].filter(function (k) {
      return f && f[k];
    });
    /* Windowed attention: RF is the widest over positions (rf.spans). */
    if (rf && rf.period && rf.period.some(function (p) { return p > 1; }))
      out.push('rf varies by position');
    return out.join(', ');
  }

  /* A column of the summary's table, as the library names it: its header
   * and unit come from the page's "nnscan-columns" block (html.c, from
   * the library's one table of layer cells), by the cell's key; `spec`
   * says how the cell is read from a node (key: the page's own name for
   * it, where it has one). */
  var BLOCK = null, CELLS = null;
  function columnsBlock() {
    if (!BLOCK) {
      var b = document.getElementById('nnscan-columns');
      BLOCK = b ? JSON.parse(b.textContent) : [];
      CELLS = {};
      /* the first of a key: RF before torchscan's name for the same cell */
      BLOCK.forEach(function (c) { CELLS[c.key] = CELLS[c.key] || c; });
    }
    return BLOCK;
  }
  function cell(key, spec) {
    columnsBlock();
    var c = CELLS[key] || {title: key, unit: ''};
    spec.cell = key;
    spec.key = spec.key || key;
    spec.label = c.title;
    if (c.unit) spec.unit = c.unit;
    return spec;
  }

  /* `own` (the cells the page reads its own way) with the block's number
   * cells (a count the library reads from the layer's counts, of a column
   * in `all`, the set the page shows: "number") that neither it nor
   * `elsewhere` has, each read from the layer's item of its key and
   * placed after the cell before it in the library's table: a new count
   * column of `all` needs no code here. */
  function withNumberCells(own, elsewhere) {
    var out = own.slice(), known = {}, shown = {}, prev = null;
    own.forEach(function (c) { known[c.cell] = shown[c.cell] = true; });
    elsewhere.forEach(function (c) { known[c.cell] = true; });
    columnsBlock().forEach(function (b) {
      if (b.number && !known[b.key]) {
        var at = -1;
        out.forEach(function (c, i) { if (c.cell === prev) at = i; });
        out.splice(at + 1, 0, cell(b.key, {
          value: function (n) { return n.layer[b.key]; }}));
        known[b.key] = shown[b.key] = true;
      }
      if (shown[b.key]) prev = b.key;
    });
    return out;
  }

  function adaptSummary(doc) {
    learnFamilies(doc.families || [], doc.op_types || []);
    var famOf = {};
    (doc.op_types || []).forEach(function (o) { famOf[o.op_type] = o.family || 'unknown'; });
    var byIndex = {}, root = null, nodes = [];
    (doc.layers || []).forEach(function (l) {
      var fams = (l.op_types || []).map(function (t) { return famOf[t] || 'unknown'; });
      var work = fams.filter(function (f) { return !MOVEMENT[f]; });
      var n = {
        id: nodes.length, name: l.name || '(unnamed)', path: l.path, type: l.type,
        depth: l.depth, family: (work[0] || fams[0] || 'unknown'), children: [],
        metrics: {macs: l.macs, flops: l.flops, params: l.params,
                  activation_bytes: l.activation_bytes, dmas: l.dmas},
        /* absent: equal to macs / flops (docs/metrics.md) */
        unmasked: {macs: l.macs_unmasked != null ? l.macs_unmasked : l.macs,
                   flops: l.flops_unmasked != null ? l.flops_unmasked : l.flops},
        cells: {shape: l.called === false ? 'not called' : shapeText(l.output), buffers: l.buffers, param_bytes: l.param_bytes,
                /* params + frozen where no experts are (older documents: absent) */
                params_active: l.params_active != null ? l.params_active
                  : (l.params || 0) + (l.frozen || 0),
                nodes: l.nodes, rf: rfText(l.rf, 'field'), stride: rfText(l.rf, 'stride'),
                pad: rfText(l.rf, 'padding'), flags: flagText(l.flags, l.rf),
                op_types: (l.op_types || []).join(', '), saved: l.saved_bytes,
                /* one rank of a parallel plan (docs/metrics.md, "Per rank") */
                rank_comm: l.per_rank ? l.per_rank.comm_bytes : null,
                rank_param_bytes: l.per_rank ? l.per_rank.param_bytes : null},
        layer: l,  /* the document's item: the number cells read it */
        index: l.index
      };
      if (l.latency_ms != null) n.metrics.latency_ms = l.latency_ms;
      if (doc.hardware) {
        n.roof = {bytes: l.bytes, intensity: l.intensity, time_s: l.time_s, bound: l.bound,
                  flops: l.flops};
      }
      byIndex[l.index] = n;
      nodes.push(n);
      var p = l.parent == null ? null : byIndex[l.parent];
      if (p) { n.parent = p; p.children.push(n); } else if (!root) root = n;
    });
    var t = doc.totals || {};
    var metrics = COUNT_METRICS.filter(function (m) {
      return m.key !== 'latency_ms' || (root && root.metrics.latency_ms != null);
    });
    var notes = [];
    (doc.uncounted_ops || []).forEach(function (o) {
      // Why (no_rule / no_size / failed): an op with a cost rule is never
      // said to have none.
      var why = o.no_size && !o.no_rule && !o.failed
        ? ': its sizes are unknown (or negative with symbolic dims taken as 1; --input with the real sizes fixes it)'
        : o.failed && !o.no_rule && !o.no_size
          ? ': its cost rule failed (see the warnings)'
          : o.no_rule === o.nodes || o.no_rule == null ? ' has no cost rule'
            : ' could not be counted (no cost rule, unknown sizes or a failed rule)';
      notes.push({kind: 'warn', text: 'Not counted: ' + (o.domain ? o.domain + '.' : '') +
                  o.op_type + ' (' + o.nodes + ' node' + (o.nodes === 1 ? '' : 's') +
                  ')' + why + '; the totals are lower bounds.'});
    });
    (doc.unknown_ops || []).forEach(function (o) {
      notes.push({kind: 'warn', text: 'Unknown op: ' + (o.domain ? o.domain + '.' : '') +
                  o.op_type + ' (' + o.nodes + ' node' + (o.nodes === 1 ? '' : 's') + ').'});
    });
    if (doc.symbols_taken_as_1)
      notes.push({kind: 'info', text: 'Symbolic dims taken as 1: ' +
                  (doc.symbols || []).join(', ') +
                  '. Fix them with --input NAME=DIMS or --batch N.'});
    (doc.warnings || []).forEach(function (w) { notes.push({kind: 'info', text: w}); });
    var mem = doc.memory, curve = null;
    if (mem && mem.live_bytes && mem.live_bytes.length) {
      curve = {
        title: 'Live activation memory over the node order',
        values: mem.live_bytes, unit: 'bytes', peak: mem.peak_position,
        label: function (i) {
          var n = byIndex[mem.node_layers[i]];
          return n ? (n.path || n.name) : '';
        },
        peakLabel: t.peak_node
      };
    }
    var opts = doc.options || {};
    var tr = t.training || {};
    /* the roofline's cells, shown together when the analysis named a device */
    var roofCells = [
      cell('bytes', {value: function (n) { return n.roof.bytes; }}),
      cell('intensity', {text: function (n) { return n.roof.intensity.toFixed(1); }}),
      cell('bound', {text: function (n) { return n.roof.bound; }}),
      cell('time_s', {text: function (n) { return fmtSeconds(n.roof.time_s); }})
    ];
    var adapted = {
      kind: 'summary', title: (doc.model && doc.model.name) || 'model',
      subtitle: [doc.model && doc.model.path,
                 doc.model && doc.model.producer ? doc.model.producer + ' ' + (doc.model.producer_version || '') : null,
                 doc.model ? doc.model.nodes + ' nodes' : null,
                 nodes.length + ' layers',
                 'nnscan ' + doc.nnscan_version].filter(Boolean).join(' · '),
      root: root, nodes: nodes, metrics: metrics,
      columns: withNumberCells([
        cell('type', {text: function (n) { return n.type || ''; }}),
        cell('output_shape', {key: 'shape', text: function (n) { return n.cells.shape; }}),
        cell('flops_unmasked', {masked: true, value: function (n) { return n.unmasked.flops; }}),
        cell('macs_unmasked', {masked: true, value: function (n) { return n.unmasked.macs; }}),
        /* before RF here, after it in the text table */
        cell('activation_bytes', {value: function (n) { return n.metrics.activation_bytes; }}),
        cell('saved_bytes', {value: function (n) { return n.cells.saved; }}),
        cell('rf', {text: function (n) { return n.cells.rf; }}),
        cell('rf_stride', {key: 'stride', text: function (n) { return n.cells.stride; }}),
        cell('rf_padding', {key: 'pad', text: function (n) { return n.cells.pad; }}),
        cell('params_pct', {key: 'pct_params', pct: 'params'}),
        cell('macs_pct', {key: 'pct_macs', pct: 'macs'}),
        {key: 'flags', label: 'Flags', text: function (n) { return n.cells.flags; }}
      ], roofCells).filter(function (c) {  /* the unmasked columns where a mask left pairs out */
        return !c.masked || (t.macs_unmasked != null && t.macs_unmasked !== t.macs);
      }).concat(doc.hardware ? roofCells : []).filter(function (c) {
        // saved for backward: only with a recorded training step
        return c.key !== 'saved_bytes' || tr.estimate === false;
      }),
      hardware: doc.hardware || null,
      totals: [
        {label: 'Parameters', value: t.params, unit: 'count',
         sub: fmtRaw(t.params) + ' · ' + fmtClever(t.param_bytes, 'bytes') +
              (t.buffers ? ' · ' + fmtClever(t.buffers, 'count') + ' buffers' : '')},
        {label: 'MACs', value: t.macs, unit: 'count', partial: !t.complete},
        {label: 'FLOPs', value: t.flops, unit: 'count', partial: !t.complete},
        t.macs_unmasked != null && t.macs_unmasked !== t.macs ?
          {label: 'MACs over allowed pairs', value: t.macs_unmasked, unit: 'count',
           partial: !t.complete, sub: 'attention masks applied · FLOPs ' +
             fmtClever(t.flops_unmasked, 'count')} : null,
        t.tokens ? {label: 'FLOPs per token', value: t.flops_per_token, unit: 'count',
                    sub: fmtRaw(t.tokens) + ' tokens · masked ' +
                         fmtClever(t.flops_unmasked_per_token, 'count')} : null,
        t.train_flops != null ?
          {label: t.tokens ? 'Training FLOPs per token' : 'Training FLOPs',
           value: t.tokens ? t.train_flops_per_token : t.train_flops, unit: 'count',
           sub: 'forward + backward as recorded · masked ' +
                fmtClever(t.tokens ? t.train_flops_unmasked_per_token
                                   : t.train_flops_unmasked, 'count')} : null,
        {label: 'Peak activations', value: t.peak_activation_bytes, unit: 'bytes',
         sub: t.peak_node ? 'after ' + t.peak_node : ''},
        {label: 'Memory accesses', value: t.dmas, unit: 'count', partial: !t.complete, sub: 'elements'},
        tr.estimate === false
          ? {label: 'Training step peak', value: t.train_peak_bytes, unit: 'bytes',
             sub: (tr.optimizer || '') + ', at ' + (tr.peak_at ? tr.peak_at.phase + ' ' +
                  tr.peak_at.label + (tr.peak_at.module ? ' in ' + tr.peak_at.module : '') : '?') +
                  ' · saved ' + fmtClever(t.saved_bytes, 'bytes')}
          : {label: 'Training estimate', value: tr.total_bytes, unit: 'bytes',
             sub: (tr.optimizer || '') + ', an estimate'}
      ],
      notes: notes,
      curve: curve,
      depth: opts.max_depth,
      opTypes: (doc.op_types || []).map(function (o) {
        return {name: o.op_type, family: o.family || 'unknown', nodes: o.nodes,
                metrics: {macs: o.macs, flops: o.flops, params: o.params,
                          activation_bytes: o.activation_bytes, dmas: o.dmas},
                counted: o.counted};
      })
    };
    /* Mixture of experts and decoder steps (docs/metrics.md): only in the
     * documents that have them (a dense model's params_active is its
     * params + frozen, nothing to show apart). */
    if (t.params_active != null &&
        t.params_active !== (t.params || 0) + (t.frozen || 0)) {
      adapted.columns.splice(3, 0, {key: 'params_active', label: 'Active params',
        unit: 'count', value: function (n) { return n.cells.params_active; }});
      adapted.totals.splice(1, 0, {label: 'Active parameters', value: t.params_active,
        unit: 'count', sub: 'k of E experts' +
          (t.weight_bytes_read != null ? ' · reads ' +
           fmtClever(t.weight_bytes_read, 'bytes') : '')});
    }
    if (t.per_rank) {
      adapted.perRank = t.per_rank;
      if ((doc.layers || []).some(function (l) { return l.per_rank; }))
        adapted.columns.push(
          {key: 'rank_param_bytes', label: 'Param bytes / rank', unit: 'bytes',
           value: function (n) { return n.cells.rank_param_bytes; }},
          {key: 'rank_comm', label: 'Comm / rank', unit: 'bytes',
           value: function (n) { return n.cells.rank_comm; }});
    }
    if (t.kv_cache_bytes != null)
      adapted.totals.push({label: 'KV cache', value: t.kv_cache_bytes, unit: 'bytes',
        sub: 'after the step · read ' + fmtClever(t.kv_cache_bytes_read, 'bytes') +
             ' · written ' + fmtClever(t.kv_cache_bytes_written, 'bytes')});
    return adapted;
  }

  function adaptTable(doc) {
    return {kind: 'table', title: 'Model comparison',
            subtitle: doc.models.length + ' models · nnscan ' + doc.nnscan_version,
            models: doc.models};
  }

  /* nnscan.inspect (docs/inspect.md): what ran, per module. Totals over
   * all calls are divided by the number of passes (per-pass figures);
   * modules are coloured by their class, NaN/Inf producers in red. */
  function adaptInspect(doc) {
    var passes = Math.max(1, (doc.passes || []).length);
    function per(v) { return v == null ? null : v / passes; }
    var nodes = [], byIndex = {}, root = null;
    (doc.modules || []).forEach(function (mo) {
      var f = mo.forward || {}, b = mo.backward || {}, nf = mo.nonfinite || {};
      var role = [nf.forward_role ? 'fwd ' + nf.forward_role : '', nf.backward_role ? 'bwd ' + nf.backward_role : '']
        .filter(Boolean).join(', ');
      var n = {
        id: nodes.length, name: mo.name || (doc.model && doc.model.name) || '(model)', path: mo.path,
        type: mo.type, depth: mo.depth, children: [], index: mo.index,
        family: nf.forward_role === 'producer' || nf.backward_role === 'producer' ? 'nonfinite' : 'type:' + mo.type,
        metrics: {latency_ms: per(f.inclusive_ms), backward_ms: per(b.inclusive_ms),
                  alloc_bytes: per(f.alloc_bytes), params: mo.params, macs: mo.macs, flops: mo.flops},
        cells: {calls: mo.calls, fwd_self: per(f.self_ms), bwd_self: per(b.self_ms),
                bwd_alloc: per(b.alloc_bytes), nonfinite: role, saved: mo.predicted_saved_bytes,
                roofline_ms: mo.roofline_ms, roof_fraction: mo.roof_fraction,
                slowest: mo.ranks && mo.ranks.slowest ? mo.ranks.slowest : null}
      };
      var tk = 'type:' + mo.type;
      if (!TYPE_COLOURS[tk])
        TYPE_COLOURS[tk] = TYPE_PALETTE[Object.keys(TYPE_COLOURS).length % TYPE_PALETTE.length];
      /* Achieved FLOP/s: its static FLOPs (one forward of the model, what
       * a pass runs) over its forward time per pass. */
      if (mo.flops != null && mo.calls > 0 && f.inclusive_ms > 0)
        n.cells.flops_rate = mo.flops / (per(f.inclusive_ms) / 1e3);
      byIndex[mo.index] = n;
      nodes.push(n);
      var p = mo.parent == null ? null : byIndex[mo.parent];
      if (p) { n.parent = p; p.children.push(n); } else if (!root) root = n;
    });
    /* A container never called itself (a ModuleList: GPT-2's
     * transformer.h) has no time or memory of its own: its value is the
     * sum of its children's, as on the summary page, so that its subtree
     * is drawn. Children come after their parent (preorder): walking
     * back, a child is summed before its parent. */
    var summed = [];
    for (var i = nodes.length - 1; i >= 0; i--) {
      var n = nodes[i];
      if (!n.children.length || n.cells.calls > 0) continue;
      ['latency_ms', 'backward_ms', 'alloc_bytes', 'flops', 'macs', 'params'].forEach(function (k) {
        if (n.metrics[k] != null && (k === 'flops' || k === 'macs' || k === 'params')) return;
        var sum = null;
        n.children.forEach(function (c) { if (c.metrics[k] != null) sum = (sum || 0) + c.metrics[k]; });
        n.metrics[k] = sum;
      });
      var b = null;
      n.children.forEach(function (c) { if (c.cells.bwd_alloc != null) b = (b || 0) + c.cells.bwd_alloc; });
      n.cells.bwd_alloc = b;
      n.cells.fwd_self = n.cells.bwd_self = null;  /* nothing of its own: "–" */
      n.summed = true;
      summed.push(n);
    }
    var statics = nodes.some(function (n) { return n.metrics.flops != null || n.metrics.macs != null; });
    /* predict_training=True: what a training step saves, beside Fwd mem */
    var predicted = nodes.some(function (n) { return n.cells.saved != null; });
    var metrics = [
      {key: 'latency_ms', label: 'Forward time', unit: 'ms'},
      {key: 'backward_ms', label: 'Backward time', unit: 'ms'},
      {key: 'alloc_bytes', label: 'Forward memory', unit: 'bytes'},
      {key: 'params', label: 'Params', unit: 'count'},
      {key: 'macs', label: 'MACs', unit: 'count'},
      {key: 'flops', label: 'FLOPs', unit: 'count'}
    ].filter(function (m) { return root && root.metrics[m.key] != null && root.metrics[m.key] > 0; });
    var notes = [];
    var fn = doc.first_nonfinite || {};
    ['forward', 'backward'].forEach(function (ph) {
      var o = fn[ph];
      if (o) notes.push({kind: 'warn', text: 'First NaN/Inf in the ' + ph + ': ' + (o.path || '(model)') +
                         ' (' + o.role + ', call ' + o.call + ', rank ' + o.rank + ', pass ' + o.pass + ').'});
    });
    if (doc.roofline && (doc.roofline.furthest || []).length) {
      var far = doc.roofline.furthest.slice(0, 5).map(function (i) {
        var mo = doc.modules[i];
        return (mo.path || '(model)') + ' ' + fmtShare(mo.roof_fraction);
      });
      notes.push({kind: 'info', text: 'Furthest from their roof on ' + (doc.roofline.hardware || 'the device') +
                  ' (roofline time / measured forward time): ' + far.join(', ') + '.'});
    }
    if (summed.length) {
      var named = summed.slice().reverse().slice(0, 3).map(function (n) {
        return (n.path || '(model)') + ' (' + n.type + ')';
      });
      var many = summed.length > 1;
      notes.push({kind: 'info', text: named.join(', ') + (summed.length > 3 ? ' and ' + (summed.length - 3) + ' more' : '') +
                  (many ? ' are' : ' is') + ' never called ' + (many ? 'themselves' : 'itself') + ': ' +
                  (many ? 'their' : 'its') + ' time and memory are the sum of ' + (many ? 'their' : 'its') +
                  ' children\'s.'});
    }
    var meta = doc.meta || {};
    var rt = root ? root.metrics : {};
    function num(c) { return function (n) { return n.metrics[c] != null ? n.metrics[c] : n.cells[c]; }; }
    return {
      kind: 'summary', title: (doc.model && doc.model.name) || 'model',
      subtitle: ['inspection', meta.device, passes + ' pass' + (passes === 1 ? '' : 'es'),
                 (doc.ranks || 1) + ' rank' + (doc.ranks > 1 ? 's' : ''), nodes.length + ' modules',
                 'nnscan ' + doc.nnscan_version].filter(Boolean).join(' · '),
      root: root, nodes: nodes, metrics: metrics.length ? metrics : [{key: 'params', label: 'Params', unit: 'count'}],
      /* NaN/Inf right after the class, so it is in view on any screen;
       * static counts beside the times when known. */
      columns: [
        {key: 'type', label: 'Type', text: function (n) { return n.type || ''; }},
        {key: 'nonfinite', label: 'NaN/Inf', text: function (n) { return n.cells.nonfinite; }},
        {key: 'calls', label: 'Calls', unit: 'count', value: num('calls')},
        {key: 'latency_ms', label: 'Fwd time', unit: 'ms', value: num('latency_ms')},
        {key: 'fwd_self', label: 'Fwd self', unit: 'ms', value: num('fwd_self')},
        {key: 'backward_ms', label: 'Bwd time', unit: 'ms', value: num('backward_ms')},
        {key: 'bwd_self', label: 'Bwd self', unit: 'ms', value: num('bwd_self')},
        {key: 'alloc_bytes', label: 'Fwd mem', unit: 'bytes', value: num('alloc_bytes')},
        {key: 'saved', label: 'Saved (pred.)', unit: 'bytes', value: num('saved'), predicted: true},
        {key: 'bwd_alloc', label: 'Bwd mem', unit: 'bytes', value: num('bwd_alloc')},
        {key: 'flops', label: 'FLOPs', unit: 'count', value: num('flops'), statics: true},
        {key: 'macs', label: 'MACs', unit: 'count', value: num('macs'), statics: true},
        {key: 'flops_rate', label: 'FLOP/s', unit: 'count', value: num('flops_rate'), statics: true},
        {key: 'params', label: 'Params', unit: 'count', value: num('params')}
      ].filter(function (c) {
        return (statics || !c.statics) && (predicted || !c.predicted);
      }).concat(doc.roofline ? [
        /* Against the roofline (docs/inspect.md): the static time of one
         * forward on the run's device, and that over the measured time. */
        {key: 'roofline_ms', label: 'Roof', unit: 'ms', value: num('roofline_ms')},
        {key: 'roof_fraction', label: '% roof', text: function (n) {
          var f = n.cells.roof_fraction;
          return f == null ? '–' : fmtShare(f);
        }}
      ] : []).concat(doc.ranks > 1 ? [
        /* The rank slowest in the module's forward / backward ("1/0"). */
        {key: 'slowest', label: 'Slowest rank', text: function (n) {
          var s = n.cells.slowest;
          if (!s || s.forward == null) return '–';
          return s.backward == null || s.backward === s.forward ? String(s.forward) : s.forward + '/' + s.backward;
        }}
      ] : []),
      rankRows: doc.per_rank || null,
      totals: [
        {label: 'Forward per pass', value: rt.latency_ms, unit: 'ms', sub: meta.clock ? meta.clock + ' clock' : ''},
        {label: 'Backward per pass', value: rt.backward_ms, unit: 'ms'},
        {label: 'Forward memory', value: rt.alloc_bytes, unit: 'bytes', sub: 'allocated per pass'},
        {label: 'Parameters', value: rt.params, unit: 'count'}
      ].concat(statics && rt.flops != null ? [
        {label: 'FLOPs per forward', value: rt.flops, unit: 'count',
         sub: root.cells.flops_rate ? fmtClever(root.cells.flops_rate, 'count') + 'FLOP/s achieved' : 'static count'}
      ] : []),
      notes: notes, curve: null, opTypes: []
    };
  }

  /* nnscan.diff (docs/json.md): two runs side by side; the document is
   * shown as it is, so the view keeps it. */
  function adaptDiff(doc) {
    var c = doc.counts;
    return {kind: 'diff', doc: doc,
            title: doc.before.name + ' → ' + doc.after.name,
            subtitle: c.changed + ' changed · ' + c.added + ' added · ' + c.removed +
              ' removed · ' + c.unchanged + ' unchanged · nnscan ' + doc.nnscan_version};
  }

  var ADAPTERS = {'nnscan.summary': adaptSummary, 'nnscan.table': adaptTable,
                  'nnscan.inspect': adaptInspect, 'nnscan.diff': adaptDiff};

  /* ==== Tooltip ==== */

  var tip = null;
  function showTip(ev, rows) {
    if (!tip) { tip = el('div', {cls: 'tip', role: 'tooltip'}); document.body.appendChild(tip); }
    tip.textContent = '';
    rows.forEach(function (r, i) {
      tip.appendChild(el('div', {cls: i === 0 ? 'tip-title' : 'tip-row'},
        Array.isArray(r) ? [el('span', {text: r[0]}), el('b', {text: r[1]})] : [r]));
    });
    tip.style.display = 'block';
    var x = ev.clientX + 14, y = ev.clientY + 14, w = tip.offsetWidth, h = tip.offsetHeight;
    if (x + w > window.innerWidth - 8) x = ev.clientX - w - 14;
    if (y + h > window.innerHeight - 8) y = ev.clientY - h - 14;
    tip.style.left = Math.max(4, x) + 'px';
    tip.style.top = Math.max(4, y) + 'px';
  }
  function hideTip() { if (tip) tip.style.display = 'none'; }

  function nodeTipRows(view, n, metric) {
    var rows = [n.path || n.name];
    rows.push(['Type', n.type || '']);
    view.metrics.forEach(function (m) {
      var v = n.metrics[m.key];
      if (v == null) return;
      rows.push([m.label, fmtClever(v, m.unit) + (m.unit === 'bytes' || v < 1000 ? '' : '  (' + fmtRaw(v) + ')') +
                 (m.key === metric.key ? ' · ' + fmtPct(v, view.root.metrics[m.key]) + ' of all' : '')]);
    });
    if (n.cells.shape) rows.push(['Output', n.cells.shape]);
    return rows;
  }

  /* ==== The icicle ==== */

  var ROW_H = 30;

  function Icicle(view, host, onPick) {
    this.view = view; this.host = host; this.onPick = onPick;
    /* The first metric the model has: a model without MACs opens on
     * FLOPs, not on an empty drawing. */
    this.metric = view.metrics.filter(function (m) { return view.root.metrics[m.key] > 0; })[0] || view.metrics[0];
    this.focus = view.root;
    this.maxDepth = 0;
    var self = this;
    view.nodes.forEach(function (n) { if (n.depth > self.maxDepth) self.maxDepth = n.depth; });
    this.levels = Math.min(this.maxDepth + 1, 8);
  }

  Icicle.prototype.familyOf = function (n, key) { return dominantFamily(n, key); };

  /* The family a box is drawn in: its own for a leaf, else that of the
   * child holding most of the metric (what dominates underneath). */
  function dominantFamily(n, key) {
    while (n.children.length) {
      var best = null;
      for (var i = 0; i < n.children.length; i++)
        if (!best || (n.children[i].metrics[key] || 0) > (best.metrics[key] || 0)) best = n.children[i];
      if (!(best.metrics[key] > 0)) break;
      n = best;
    }
    return n.family;
  }

  Icicle.prototype.draw = function () {
    var key = this.metric.key, focus = this.focus, self = this;
    var W = Math.max(320, this.host.clientWidth || 1000);
    var depth0 = focus.depth, levels = Math.min(this.maxDepth - depth0 + 1, this.levels);
    var H = levels * ROW_H;
    var s = svg('svg', {width: W, height: H, viewBox: '0 0 ' + W + ' ' + H,
                        'class': 'icicle', role: 'img',
                        'aria-label': 'module tree sized by ' + this.metric.label});
    var total = focus.metrics[key] || 0;
    this.drawn = 0;
    /* Explicit stack: a hostile tree depth cannot overflow the JS stack. */
    var stack = [[focus, 0, W]];
    while (stack.length) {
      var it = stack.pop(), n = it[0], x = it[1], w = it[2];
      var d = n.depth - depth0;
      /* The focus's children are always drawn, a 1 px sliver at least,
       * so that no top-level module goes missing; deeper boxes below half
       * a pixel are left out (their parent's box covers them). */
      if (d === 1 && w < 1 && (n.metrics[key] || 0) > 0) w = 1;
      if (d >= levels || w < 0.5) continue;
      var g = svg('g', {'class': 'box', 'data-path': n.path, 'data-id': n.id,
                        'data-value': n.metrics[key] || 0});
      var fam = this.familyOf(n, key);
      /* Boxes too thin for a gap are drawn edge to edge, so a run of
       * hundreds of small layers reads as a solid band, not a haze. */
      var thin = w < 4;
      g.appendChild(svg('rect', {x: x.toFixed(2), y: d * ROW_H, width: (thin ? w : w - 1).toFixed(2),
                                 height: ROW_H - 2, rx: w > 6 ? 3 : 0, fill: familyColour(fam),
                                 'class': thin ? 'thin' : ''}));
      if (w > 44) {
        /* The name, then the value in a lighter weight when both fit. */
        var value = fmtClever(n.metrics[key] || 0, this.metric.unit);
        var maxc = Math.floor((w - 10) / 6.6), name = n.name;
        if (name.length > maxc) name = name.slice(0, Math.max(maxc - 1, 1)) + '…';
        var t = svg('text', {x: (x + 6).toFixed(1), y: d * ROW_H + 19, fill: inkOn(familyColour(fam))});
        t.textContent = name;
        if (name.length + value.length + 2 <= maxc) {
          var v = svg('tspan', {'class': 'v', dx: 6});
          v.textContent = value;
          t.appendChild(v);
        }
        g.appendChild(t);
      }
      s.appendChild(g);
      this.drawn++;
      var v = n.metrics[key] || 0;
      if (v <= 0 || !n.children.length) continue;
      var cx = x;
      for (var i = 0; i < n.children.length; i++) {
        var c = n.children[i], cw = w * (c.metrics[key] || 0) / v;
        if (cw > 0) stack.push([c, cx, cw]);
        cx += cw;
      }
    }
    s.addEventListener('mousemove', function (ev) {
      var g = ev.target.closest && ev.target.closest('g.box');
      if (!g) { hideTip(); return; }
      var n = self.view.nodes[+g.getAttribute('data-id')];
      showTip(ev, nodeTipRows(self.view, n, self.metric).concat(['Click: zoom in, and find it in the table']));
    });
    s.addEventListener('mouseleave', hideTip);
    s.addEventListener('click', function (ev) {
      var g = ev.target.closest && ev.target.closest('g.box');
      if (!g) return;
      var n = self.view.nodes[+g.getAttribute('data-id')];
      self.zoom(n === self.focus && n.parent ? n.parent : n);
      self.onPick(n);
    });
    this.host.textContent = '';
    this.host.appendChild(s);
    if (!total) this.host.appendChild(el('p', {cls: 'empty', text: 'No ' + this.metric.label + ' in ' + (focus.path || focus.name) + '.'}));
    if (this.crumbs) this.drawCrumbs();
  };

  Icicle.prototype.zoom = function (n) { this.focus = n; this.draw(); };

  Icicle.prototype.drawCrumbs = function () {
    var self = this, chain = [];
    for (var n = this.focus; n; n = n.parent) chain.unshift(n);
    this.crumbs.textContent = '';
    chain.forEach(function (c, i) {
      if (i) self.crumbs.appendChild(el('span', {cls: 'sep', text: '›'}));
      self.crumbs.appendChild(el('button', {cls: 'crumb', type: 'button', text: c.name,
                                            onclick: function () { self.zoom(c); }}));
    });
  };

  /* ==== The curve ==== */

  function drawCurve(curve, host) {
    var W = Math.max(320, host.clientWidth || 1000), H = 220, L = 64, R = 16, T = 16, B = 30;
    var vals = curve.values, n = vals.length, max = 0;
    for (var i = 0; i < n; i++) if (vals[i] > max) max = vals[i];
    var pw = W - L - R, ph = H - T - B;
    function X(i) { return L + (n > 1 ? i / (n - 1) : 0.5) * pw; }
    function Y(v) { return T + ph - (max > 0 ? v / max : 0) * ph; }
    var s = svg('svg', {width: W, height: H, viewBox: '0 0 ' + W + ' ' + H, 'class': 'curve', role: 'img',
                        'aria-label': curve.title});
    for (var k = 0; k <= 4; k++) {
      var v = max * k / 4, y = Y(v);
      s.appendChild(svg('line', {x1: L, x2: W - R, y1: y, y2: y, 'class': 'grid'}));
      var t = svg('text', {x: L - 8, y: y + 4, 'text-anchor': 'end', 'class': 'axis'});
      t.textContent = fmtClever(v, curve.unit);
      s.appendChild(t);
    }
    /* One min/max pair per pixel column keeps every spike, peak included. */
    var cols = Math.max(1, Math.floor(pw)), pts = [];
    if (n <= cols * 2) {
      for (i = 0; i < n; i++) pts.push(X(i).toFixed(1) + ',' + Y(vals[i]).toFixed(1));
    } else {
      for (var c = 0; c < cols; c++) {
        var a = Math.floor(c * n / cols), b = Math.floor((c + 1) * n / cols), lo = Infinity, hi = -Infinity;
        for (i = a; i < b; i++) { if (vals[i] < lo) lo = vals[i]; if (vals[i] > hi) hi = vals[i]; }
        var x = (L + c + 0.5).toFixed(1);
        pts.push(x + ',' + Y(lo).toFixed(1), x + ',' + Y(hi).toFixed(1));
      }
    }
    var base = (T + ph).toFixed(1);
    s.appendChild(svg('polygon', {points: pts[0].split(',')[0] + ',' + base + ' ' + pts.join(' ') + ' ' +
                                  pts[pts.length - 1].split(',')[0] + ',' + base, 'class': 'area'}));
    s.appendChild(svg('polyline', {points: pts.join(' '), 'class': 'line'}));
    var xt = svg('text', {x: L + pw / 2, y: H - 6, 'text-anchor': 'middle', 'class': 'axis'});
    xt.textContent = 'node ' + 1 + ' … ' + n + ' in running order';
    s.appendChild(xt);
    if (curve.peak != null) {
      var px = X(curve.peak), py = Y(vals[curve.peak]);
      s.appendChild(svg('line', {x1: px, x2: px, y1: T, y2: T + ph, 'class': 'peak-line'}));
      var pk = svg('circle', {cx: px, cy: py, r: 5, 'class': 'peak', 'data-position': curve.peak,
                              'data-value': vals[curve.peak]});
      s.appendChild(pk);
      var lt = svg('text', {x: px + (px > W - 260 ? -8 : 8), y: T + 12,
                            'text-anchor': px > W - 260 ? 'end' : 'start', 'class': 'peak-label'});
      lt.textContent = 'peak ' + fmtClever(vals[curve.peak], curve.unit) + ' after ' + (curve.peakLabel || curve.label(curve.peak));
      s.appendChild(lt);
    }
    var cross = svg('line', {y1: T, y2: T + ph, 'class': 'cross', visibility: 'hidden'});
    s.appendChild(cross);
    s.addEventListener('mousemove', function (ev) {
      var r = s.getBoundingClientRect(), x = (ev.clientX - r.left) * W / r.width;
      if (x < L || x > W - R) { hideTip(); cross.setAttribute('visibility', 'hidden'); return; }
      var i = Math.round((x - L) / pw * (n - 1));
      i = Math.max(0, Math.min(n - 1, i));
      cross.setAttribute('x1', X(i)); cross.setAttribute('x2', X(i)); cross.setAttribute('visibility', 'visible');
      showTip(ev, ['node ' + (i + 1) + ' of ' + n, ['Live', fmtClever(vals[i], curve.unit) + '  (' + fmtRaw(vals[i]) + ' B)'],
                   ['Layer', curve.label(i) || '(model)']].concat(i === curve.peak ? ['This is the peak.'] : []));
    });
    s.addEventListener('mouseleave', function () { hideTip(); cross.setAttribute('visibility', 'hidden'); });
    host.textContent = '';
    host.appendChild(s);
  }

  /* ==== The roofline ==== */

  /* Each layer a point at (intensity, FLOP/s it would reach at its
   * roofline time: flops / time_s), on log axes under the two roofs of
   * the device: memory (bandwidth x intensity) and compute (the matrix
   * ops' peak; the other ops' peak dashed when it differs). A click picks
   * the layer (onPick) and names it under the chart. */
  function drawRoofline(view, host, onPick) {
    var hw = view.hardware, W = Math.max(320, host.clientWidth || 1000), H = 320;
    var L = 104, R = 16, T = 16, B = 36, pw = W - L - R, ph = H - T - B;
    var pts = view.nodes.filter(function (n) {
      return n.depth > 0 && n.roof && n.roof.time_s > 0 && n.roof.flops > 0 && n.roof.bytes > 0;
    });
    var peak = Math.max(hw.matrix_peak_flops, hw.other_peak_flops), bw = hw.bandwidth;
    var ridge = peak / bw, xlo = ridge / 1e3, xhi = ridge * 1e2;
    pts.forEach(function (n) {
      xlo = Math.min(xlo, n.roof.intensity / 2); xhi = Math.max(xhi, n.roof.intensity * 2);
    });
    var ylo = Math.min(bw * xlo, peak / 1e4), yhi = peak * 2;
    pts.forEach(function (n) { ylo = Math.min(ylo, n.roof.flops / n.roof.time_s / 2); });
    function X(v) { return L + (Math.log(v) - Math.log(xlo)) / (Math.log(xhi) - Math.log(xlo)) * pw; }
    function Y(v) { return T + ph - (Math.log(v) - Math.log(ylo)) / (Math.log(yhi) - Math.log(ylo)) * ph; }
    var s = svg('svg', {width: W, height: H, viewBox: '0 0 ' + W + ' ' + H, 'class': 'roofline', role: 'img',
                        'aria-label': 'roofline on ' + hw.name});
    for (var d = Math.ceil(Math.log10(ylo)); d <= Math.floor(Math.log10(yhi)); d++) {
      var y = Y(Math.pow(10, d));
      s.appendChild(svg('line', {x1: L, x2: W - R, y1: y, y2: y, 'class': 'grid'}));
      var t = svg('text', {x: L - 8, y: y + 4, 'text-anchor': 'end', 'class': 'axis'});
      t.textContent = fmtClever(Math.pow(10, d), 'count') + 'FLOP/s';
      s.appendChild(t);
    }
    for (d = Math.ceil(Math.log10(xlo)); d <= Math.floor(Math.log10(xhi)); d++) {
      var tx = svg('text', {x: X(Math.pow(10, d)), y: H - 18, 'text-anchor': 'middle', 'class': 'axis'});
      tx.textContent = Math.pow(10, d) >= 1 ? String(Math.pow(10, d)) : Math.pow(10, d).toPrecision(1);
      s.appendChild(tx);
    }
    var xt = svg('text', {x: L + pw / 2, y: H - 4, 'text-anchor': 'middle', 'class': 'axis'});
    xt.textContent = 'intensity (FLOP per byte moved)';
    s.appendChild(xt);
    function roof(p, cls, key) {
      var r = p / bw;
      s.appendChild(svg('polyline', {points: X(xlo) + ',' + Y(bw * xlo) + ' ' + X(r) + ',' + Y(p) + ' ' +
                                             X(xhi) + ',' + Y(p), 'class': 'roof ' + cls, 'data-roof': key,
                                     'data-peak': p, 'data-bandwidth': bw}));
    }
    if (hw.other_peak_flops !== hw.matrix_peak_flops) roof(hw.other_peak_flops, 'other', 'other');
    roof(hw.matrix_peak_flops, 'main', 'matrix');
    var picked = el('p', {cls: 'roof-picked', id: 'roofline-picked',
                          text: 'Click a point to show its layer.'});
    pts.forEach(function (n) {
      var perf = n.roof.flops / n.roof.time_s;
      var c = svg('circle', {cx: X(n.roof.intensity), cy: Y(perf), r: n.children.length ? 4 : 3,
                             'class': 'roof-point ' + n.roof.bound, 'data-path': n.path,
                             fill: familyColour(n.family)});
      c.addEventListener('mousemove', function (ev) {
        showTip(ev, [n.path || n.name, ['Intensity', n.roof.intensity.toPrecision(3) + ' FLOP/B'],
                     ['At its roof', fmtClever(perf, 'count') + 'FLOP/s'],
                     ['Time', fmtSeconds(n.roof.time_s) + ' (' + n.roof.bound + '-bound)']]);
      });
      c.addEventListener('mouseleave', hideTip);
      c.addEventListener('click', function () {
        picked.textContent = (n.path || n.name) + ': ' + n.roof.intensity.toPrecision(3) + ' FLOP/B, ' +
          fmtSeconds(n.roof.time_s) + ', ' + n.roof.bound + '-bound';
        picked.setAttribute('data-path', n.path);
        onPick(n);
      });
      s.appendChild(c);
    });
    host.textContent = '';
    host.appendChild(s);
    host.appendChild(picked);
  }

  /* ==== The tree table ==== */

  var TR_H = 26;

  function TreeTable(view, host) {
    this.view = view; this.host = host;
    this.open = {}; this.sortKey = null; this.sortDir = -1; this.query = ''; this.raw = false;
    this.selected = null;
    var self = this;
    view.nodes.forEach(function (n) { if (n.depth < 1) self.open[n.id] = true; });
    this.build();
  }

  TreeTable.prototype.setDepth = function (d) {
    var self = this;
    this.open = {};
    this.view.nodes.forEach(function (n) { if (n.depth < d) self.open[n.id] = true; });
    this.refresh();
  };

  TreeTable.prototype.value = function (n, c) {
    if (c.pct) return this.view.root.metrics[c.pct] ? n.metrics[c.pct] / this.view.root.metrics[c.pct] : 0;
    return c.value ? c.value(n) : c.text(n);
  };

  TreeTable.prototype.cellText = function (n, c) {
    if (c.pct) return fmtPct(n.metrics[c.pct], this.view.root.metrics[c.pct]);
    if (c.text) return c.text(n);
    var v = c.value(n);
    if (this.raw && c.unit === 'ms') return v == null ? '–' : v.toFixed(3);
    return this.raw ? fmtRaw(v) : fmtClever(v, c.unit);
  };

  TreeTable.prototype.rows = function () {
    var out = [], self = this, q = this.query.toLowerCase(), keep = null;
    if (q) {
      keep = {};
      this.view.nodes.forEach(function (n) {
        if ((n.name + ' ' + n.path).toLowerCase().indexOf(q) < 0) return;
        /* 2: a match (shown, closed unless opened); 1: an ancestor of a
         * match (shown open). */
        keep[n.id] = keep[n.id] || 2;
        for (var p = n.parent; p && keep[p.id] !== 1; p = p.parent) keep[p.id] = 1;
      });
    }
    var col = null;
    this.view.columns.forEach(function (c) { if (c.key === self.sortKey) col = c; });
    if (self.sortKey === 'name') col = {text: function (n) { return n.name; }};
    function kids(n) {
      var k = n.children;
      if (keep) k = k.filter(function (c) { return keep[c.id]; });
      if (col) {
        k = k.slice().sort(function (a, b) {
          var va = self.value(a, col), vb = self.value(b, col);
          if (typeof va === 'string') return self.sortDir * va.localeCompare(vb);
          return self.sortDir * ((va || 0) - (vb || 0));
        });
      }
      return k;
    }
    this.keep = keep;
    var stack = [this.view.root];
    while (stack.length) {
      var n = stack.pop();
      out.push(n);
      if (!this.isOpen(n)) continue;
      var k = kids(n);
      for (var i = k.length - 1; i >= 0; i--) stack.push(k[i]);
    }
    return out;
  };

  TreeTable.prototype.build = function () {
    var self = this;
    var cols = [{key: 'name', label: 'Layer'}].concat(this.view.columns);
    var head = el('div', {cls: 'tt-head'});
    /* Each column's least width: a summary's 15 columns fit the 1,306 px
     * a 1400 px window leaves the table, Flags included and RF's "whole"
     * uncut; more columns (a roofline's, a parallel plan's per-rank ones)
     * scroll, on one scrollbar. */
    var widths = {type: [100, 1.3], shape: [140, 1.4], flags: [76, 1], nonfinite: [150, 1.4],
                  rf: [60], stride: [62], pad: [44], pct_params: [80], pct_macs: [76]};
    var least = 180;
    this.grid = 'minmax(180px, 2.4fr) ' + this.view.columns.map(function (c) {
      var w = widths[c.key] || [76, 0.8];
      least += w[0];
      return w.length > 1 ? 'minmax(' + w[0] + 'px, ' + w[1] + 'fr)' : w[0] + 'px';
    }).join(' ');
    this.least = least + 'px';
    head.style.gridTemplateColumns = this.grid;
    head.style.minWidth = this.least;
    cols.forEach(function (c) {
      var h = el('button', {cls: 'th' + (c.unit || c.pct ? ' num' : ''), type: 'button', 'data-key': c.key,
                            title: 'Sort by ' + c.label + ' (within each parent)', text: c.label});
      h.addEventListener('click', function () {
        if (self.sortKey === c.key) self.sortDir = -self.sortDir;
        else { self.sortKey = c.key; self.sortDir = c.unit || c.pct ? -1 : 1; }
        self.refresh();
      });
      head.appendChild(h);
    });
    this.headEl = head;
    /* One scroller for both directions, the header sticky in it: a wide
     * table has one horizontal scrollbar, not one per part. */
    this.scroller = el('div', {cls: 'tt-scroll'});
    this.body = el('div', {cls: 'tt-body'});
    this.body.style.minWidth = this.least;
    this.scroller.appendChild(head);
    this.scroller.appendChild(this.body);
    var wrap = el('div', {cls: 'tt'}, [this.scroller]);
    this.host.appendChild(wrap);
    this.scroller.addEventListener('scroll', function () { self.paint(); });
    this.body.addEventListener('click', function (ev) {
      var r = ev.target.closest('.tr');
      if (!r) return;
      var n = self.view.nodes[+r.getAttribute('data-id')];
      if (n.children.length) { self.open[n.id] = !self.open[n.id]; self.refresh(); }
    });
    this.refresh();
  };

  TreeTable.prototype.refresh = function () {
    this.list = this.rows();
    this.body.style.height = this.list.length * TR_H + 'px';
    var self = this;
    Array.prototype.forEach.call(this.headEl.children, function (h) {
      var k = h.getAttribute('data-key');
      h.classList.toggle('sorted', k === self.sortKey);
      h.setAttribute('aria-sort', k === self.sortKey ? (self.sortDir > 0 ? 'ascending' : 'descending') : 'none');
    });
    if (this.onCount) this.onCount(this.list.length);
    this.paint(true);
  };

  /* Only the rows in view (plus a margin) exist in the DOM. */
  TreeTable.prototype.paint = function (force) {
    var top = this.scroller.scrollTop, h = this.scroller.clientHeight || 600;
    var a = Math.max(0, Math.floor(top / TR_H) - 10), b = Math.min(this.list.length, Math.ceil((top + h) / TR_H) + 10);
    if (!force && a === this.a && b === this.b) return;
    this.a = a; this.b = b;
    var frag = document.createDocumentFragment(), self = this;
    for (var i = a; i < b; i++) {
      var n = this.list[i];
      var r = el('div', {cls: 'tr' + (n === this.selected ? ' selected' : '') + (n.children.length ? ' parent' : ''),
                         'data-id': n.id, 'data-path': n.path});
      r.style.top = i * TR_H + 'px';
      r.style.gridTemplateColumns = this.grid;
      r.style.minWidth = this.least;
      var name = el('div', {cls: 'td name', title: n.path || n.name});
      name.style.paddingLeft = 8 + n.depth * 16 + 'px';
      name.appendChild(el('span', {cls: 'caret', text: n.children.length ? (this.isOpen(n) ? '▾' : '▸') : ''}));
      name.appendChild(el('span', {cls: 'swatch', style: 'background:' + familyColour(dominantFamily(n, this.view.metrics[0].key))}));
      name.appendChild(el('span', {text: n.name}));
      r.appendChild(name);
      this.view.columns.forEach(function (c) {
        var text = self.cellText(n, c);
        /* the whole text on hover where a narrow column cuts it */
        r.appendChild(el('div', {cls: 'td' + (c.unit || c.pct ? ' num' : '') + ' c-' + c.key,
                                 'data-key': c.key, text: text, title: text}));
      });
      frag.appendChild(r);
    }
    this.body.textContent = '';
    this.body.appendChild(frag);
  };

  /* Open as shown: a search opens the ancestors of every match. */
  TreeTable.prototype.isOpen = function (n) {
    return this.keep ? this.keep[n.id] === 1 || (this.keep[n.id] === 2 && !!this.open[n.id]) : !!this.open[n.id];
  };

  TreeTable.prototype.reveal = function (n) {
    for (var p = n.parent; p; p = p.parent) this.open[p.id] = true;
    this.selected = n;
    this.refresh();
    var i = this.list.indexOf(n);
    if (i >= 0) this.scroller.scrollTop = Math.max(0, i * TR_H - this.scroller.clientHeight / 2);
    this.paint(true);
  };

  /* ==== Op types ==== */

  function drawOpTypes(view, host, metric) {
    var key = metric.key, total = 0;
    var rows = view.opTypes.filter(function (o) { return (o.metrics[key] || 0) > 0; });
    rows.forEach(function (o) { total += o.metrics[key]; });
    rows.sort(function (a, b) { return b.metrics[key] - a.metrics[key]; });
    host.textContent = '';
    if (!rows.length) { host.appendChild(el('p', {cls: 'empty', text: 'No op type has ' + metric.label + '.'})); return; }
    rows.slice(0, 12).forEach(function (o) {
      var bar = el('div', {cls: 'bar'});
      bar.style.width = (100 * o.metrics[key] / rows[0].metrics[key]).toFixed(1) + '%';
      bar.style.background = familyColour(o.family);
      host.appendChild(el('div', {cls: 'op-row', title: o.family + ' family, ' + o.nodes + ' nodes'}, [
        el('span', {cls: 'op-name', text: o.name}),
        el('div', {cls: 'bar-track'}, [bar]),
        el('span', {cls: 'op-val', text: fmtClever(o.metrics[key], metric.unit) + ' · ' + fmtPct(o.metrics[key], total)})
      ]));
    });
  }

  /* ==== Pages ==== */

  function card(title, extra) {
    var head = el('div', {cls: 'card-head'}, [el('h2', {text: title})].concat(extra || []));
    var body = el('div', {cls: 'card-body'});
    return {el: el('section', {cls: 'card'}, [head, body]), head: head, body: body};
  }

  function segmented(options, current, onPick, name) {
    var box = el('div', {cls: 'seg', role: 'radiogroup', 'aria-label': name});
    options.forEach(function (o) {
      var b = el('button', {type: 'button', role: 'radio', 'data-key': o.key, text: o.label,
                            'aria-checked': String(o.key === current)});
      b.addEventListener('click', function () {
        Array.prototype.forEach.call(box.children, function (x) { x.setAttribute('aria-checked', String(x === b)); });
        onPick(o);
      });
      box.appendChild(b);
    });
    return box;
  }

  function header(view) {
    return el('header', {cls: 'top'}, [
      el('div', {cls: 'brand', text: 'nnscan'}),
      el('h1', {text: view.title}),
      el('p', {cls: 'sub', text: view.subtitle})
    ]);
  }

  /* One rank of a parallel plan (totals.per_rank, docs/json.md): every
   * number is the document's, only formatted here. */
  function perRankCard(r) {
    var mesh = Object.keys(r.mesh || {}).map(function (k) { return k + '=' + r.mesh[k]; });
    var c = card('Per rank' + (r.estimate ? ' (an estimate)' : ''));
    var grid = el('div', {cls: 'totals per-rank', id: 'per-rank'});
    function box(key, label, v, unit, sub) {
      grid.appendChild(el('div', {cls: 'total', 'data-key': key, 'data-value': v == null ? '' : String(v)}, [
        el('div', {cls: 'total-label', text: label}),
        el('div', {cls: 'total-value', title: fmtRaw(v) + (unit === 'bytes' ? ' bytes' : ''),
                   text: fmtClever(v, unit)}),
        el('div', {cls: 'total-sub', text: sub != null ? sub : unit === 'count' ? fmtRaw(v) : ''})
      ]));
    }
    box('world_size', 'Ranks', r.world_size, 'count', mesh.length ? mesh.join(' × ') : 'one rank');
    box('params', 'Parameters', r.params, 'count');
    box('param_bytes', 'Parameter bytes', r.param_bytes, 'bytes');
    box('grad_bytes', 'Gradients', r.grad_bytes, 'bytes');
    box('optimizer_bytes', 'Optimizer state', r.optimizer_bytes, 'bytes');
    box('saved_bytes', 'Saved for backward', r.saved_bytes, 'bytes');
    box('train_peak_bytes', 'Training step peak', r.train_peak_bytes, 'bytes');
    box('flops', 'FLOPs', r.flops, 'count');
    box('macs', 'MACs', r.macs, 'count');
    box('comm_bytes', 'Sent per step', r.comm_bytes, 'bytes', 'all collectives');
    Object.keys(r.comm || {}).forEach(function (k) {
      box('comm.' + k, k, r.comm[k], 'bytes', 'per step');
    });
    c.body.appendChild(grid);
    if (r.budget) {
      var b = r.budget, within = fmtClever(b.bytes, 'bytes');
      c.body.appendChild(el('p', {cls: 'budget ' + (b.fits ? 'fits' : 'grow'), id: 'per-rank-budget',
        'data-fits': String(!!b.fits), 'data-grow': b.grow || '',
        text: b.fits ? 'Fits in ' + within + ' per rank.'
                     : 'Does not fit in ' + within + ' per rank: grow ' + (b.grow || '?') + '.'}));
    }
    return c.el;
  }

  /* An inspection's rank rows (per_rank, docs/inspect.md "Ranks"): what
   * each rank measured per pass of its own, the collectives it issued and
   * the static counts of its shards; the document's numbers, formatted. */
  function rankRowsCard(rows) {
    var c = card('Ranks');
    var cols = [['Rank'], ['Passes'], ['Fwd / pass', 'ms'], ['Bwd / pass', 'ms'], ['Fwd mem / pass', 'bytes'],
                ['Collectives / pass', 'bytes'], ['Peak (static)', 'bytes'], ['Param bytes', 'bytes'],
                ['Sends / step (static)', 'bytes']];
    var head = el('tr', {}, cols.map(function (h) { return el('th', {text: h[0]}); }));
    var body = rows.map(function (r) {
      var p = Math.max(1, r.passes), k = r.counts, seen = r.collectives;
      function per(v) { return v == null ? null : v / p; }
      var vals = [r.rank, r.passes, per(r.forward_ms), per(r.backward_ms), per(r.forward_alloc_bytes),
                  seen ? per(seen.bytes_total) : null, k ? k.train_peak_bytes : null, k ? k.param_bytes : null,
                  k ? k.comm_bytes : null];
      return el('tr', {'data-rank': String(r.rank)}, vals.map(function (v, i) {
        var unit = cols[i][1];
        return el('td', {'data-value': v == null ? '' : String(v),
                         text: v == null ? '–' : unit ? fmtClever(v, unit) : String(v)});
      }));
    });
    c.body.appendChild(el('table', {cls: 'rank-rows', id: 'rank-rows'}, [el('thead', {}, [head]),
                                                                          el('tbody', {}, body)]));
    return c.el;
  }

  function renderSummary(view, main) {
    main.appendChild(header(view));
    var cards = el('div', {cls: 'totals'});
    view.totals.forEach(function (t) {
      if (!t)
        return;  /* a card only some documents have */
      cards.appendChild(el('div', {cls: 'total'}, [
        el('div', {cls: 'total-label', text: t.label}),
        el('div', {cls: 'total-value', title: fmtRaw(t.value) + (t.unit === 'bytes' ? ' bytes' : ''),
                   text: (t.partial ? '≥ ' : '') + fmtClever(t.value, t.unit)}),
        el('div', {cls: 'total-sub', text: t.sub || (t.unit === 'count' ? fmtRaw(t.value) : '')})
      ]));
    });
    main.appendChild(cards);
    if (view.notes.length) {
      main.appendChild(el('ul', {cls: 'notes'}, view.notes.map(function (n) {
        return el('li', {cls: n.kind, text: n.text});
      })));
    }

    if (view.perRank) main.appendChild(perRankCard(view.perRank));
    if (view.rankRows) main.appendChild(rankRowsCard(view.rankRows));

    var tableCard = card('Layers');
    var table;
    var ic = card('Where the cost is');
    var crumbs = el('nav', {cls: 'crumbs', 'aria-label': 'zoom'});
    var icHost = el('div', {cls: 'icicle-host'});
    var icicle = new Icicle(view, icHost, function (n) { table.reveal(n); });
    icicle.crumbs = crumbs;
    var opsHost = el('div', {cls: 'ops'});
    var seg = segmented(view.metrics, icicle.metric.key, function (m) {
      icicle.metric = m; icicle.draw(); drawOpTypes(view, opsHost, m);
      document.body.setAttribute('data-metric', m.key);
    }, 'metric');
    seg.id = 'metric';
    ic.head.appendChild(el('div', {cls: 'hint', text: 'size by'}));
    ic.head.appendChild(seg);
    var legend = el('div', {cls: 'legend'});
    var fams = {};
    view.nodes.forEach(function (n) { if (!n.children.length) fams[n.family] = 1; });
    Object.keys(fams).sort().forEach(function (f) {
      legend.appendChild(el('span', {cls: 'leg'}, [el('i', {style: 'background:' + familyColour(f)}),
                                                   f.replace(/^type:/, '').replace('_', ' ')]));
    });
    ic.body.appendChild(crumbs);
    ic.body.appendChild(icHost);
    ic.body.appendChild(legend);
    if (view.opTypes.length) {
      ic.body.appendChild(el('h3', {text: 'By op type'}));
      ic.body.appendChild(opsHost);
    }
    main.appendChild(ic.el);

    if (view.hardware) {
      var hw = view.hardware;
      var rc = card('Roofline on ' + hw.name + ' (' + hw.description + '): ' + hw.compute_dtype +
                    ' matrix ops, ' + hw.float_dtype + ' others');
      var rcHost = el('div', {cls: 'roofline-host', id: 'roofline'});
      rc.body.appendChild(rcHost);
      main.appendChild(rc.el);
      view.roofHost = rcHost;
    }
    if (view.curve) {
      var cv = card(view.curve.title);
      var cvHost = el('div', {cls: 'curve-host'});
      cv.body.appendChild(cvHost);
      main.appendChild(cv.el);
      view.curveHost = cvHost;
    }

    var search = el('input', {type: 'search', placeholder: 'Search layers by name or path', 'aria-label': 'search layers',
                              id: 'search'});
    var count = el('span', {cls: 'count'});
    var depthSeg = segmented([{key: '1', label: '1'}, {key: '2', label: '2'}, {key: '3', label: '3'},
                              {key: 'all', label: 'all'}], '1', function (o) {
      table.setDepth(o.key === 'all' ? 1e9 : +o.key);
    }, 'expand to depth');
    depthSeg.id = 'depth';
    var numSeg = segmented([{key: 'clever', label: 'rounded'}, {key: 'raw', label: 'exact'}], 'clever', function (o) {
      table.raw = o.key === 'raw'; table.paint(true);
    }, 'numbers');
    numSeg.id = 'numbers';
    tableCard.head.appendChild(el('div', {cls: 'tools'}, [search, el('span', {cls: 'hint', text: 'expand'}), depthSeg,
                                                       el('span', {cls: 'hint', text: 'numbers'}), numSeg, count]));
    main.appendChild(tableCard.el);
    table = new TreeTable(view, tableCard.body);
    table.onCount = function (k) { count.textContent = k + ' of ' + view.nodes.length + ' rows'; };
    table.refresh();
    search.addEventListener('input', function () { table.query = search.value.trim(); table.refresh(); });

    function drawAll() {
      icicle.draw();
      drawOpTypes(view, opsHost, icicle.metric);
      if (view.curve) drawCurve(view.curve, view.curveHost);
      if (view.roofHost) drawRoofline(view, view.roofHost, function (n) { table.reveal(n); });
    }
    drawAll();
    var pending = 0;
    window.addEventListener('resize', function () {
      clearTimeout(pending);
      pending = setTimeout(drawAll, 120);
    });
    document.body.setAttribute('data-metric', icicle.metric.key);
  }

  function renderTable(view, main) {
    main.appendChild(header(view));
    var fig = document.getElementById('nnscan-figure');
    var c = card('MACs against parameters');
    var plot = el('div', {cls: 'plot-host'});
    if (fig) plot.appendChild(fig.content.cloneNode(true));
    c.body.appendChild(plot);
    main.appendChild(c.el);
    var t = card('Models');
    var cols = [{key: 'name', label: 'Model'}, {key: 'params', label: 'Params', unit: 'count'},
                {key: 'flops', label: 'FLOPs', unit: 'count'}, {key: 'macs', label: 'MACs', unit: 'count'},
                {key: 'dmas', label: 'DMAs', unit: 'count'}, {key: 'rf', label: 'RF'}];
    var tbl = el('table', {cls: 'models'}), thead = el('tr'), tbody = el('tbody');
    var sortKey = null, dir = 1;
    cols.forEach(function (col) {
      var th = el('th', {cls: col.unit ? 'num' : ''}, [el('button', {type: 'button', text: col.label, onclick: function () {
        dir = sortKey === col.key ? -dir : (col.unit ? -1 : 1); sortKey = col.key; fill();
      }})]);
      thead.appendChild(th);
    });
    tbl.appendChild(el('thead', {}, [thead]));
    tbl.appendChild(tbody);
    function rfText2(m) {
      if (m.rf_whole) return 'whole';
      if (!m.rf || !m.rf.length) return '–';
      return axesText(m.rf) + (m.rf_global_context ? '+g' : '');
    }
    function fill() {
      var ms = view.models.map(function (m, i) { return {m: m, i: i}; });
      if (sortKey) ms.sort(function (a, b) {
        var va = a.m[sortKey], vb = b.m[sortKey];
        return typeof va === 'string' ? dir * va.localeCompare(vb) : dir * ((va || 0) - (vb || 0));
      });
      tbody.textContent = '';
      ms.forEach(function (x) {
        var tr = el('tr', {'data-i': x.i});
        cols.forEach(function (col) {
          var v = x.m[col.key];
          tr.appendChild(el('td', {cls: col.unit ? 'num' : '', title: col.unit ? fmtRaw(v) : '',
                                   text: col.key === 'rf' ? rfText2(x.m) : col.unit ?
                                     (x.m.complete || col.key === 'params' ? '' : '≥ ') + fmtClever(v, col.unit) :
                                     v + (x.m.symbols_at_1 ? ' *' : '')}));
        });
        tr.addEventListener('mouseenter', function () { highlight(x.i, true); });
        tr.addEventListener('mouseleave', function () { highlight(x.i, false); });
        tbody.appendChild(tr);
      });
    }
    function highlight(i, on) {
      Array.prototype.forEach.call(document.querySelectorAll('[data-i="' + i + '"]'), function (e) {
        e.classList.toggle('hot', on);
      });
    }
    fill();
    t.body.appendChild(tbl);
    /* Rows whose counts took symbolic dims as 1 are marked, and say which. */
    var assumed = view.models.filter(function (m) { return m.symbols_at_1; });
    if (assumed.length)
      t.body.appendChild(el('p', {cls: 'note', text: '* Symbolic dims taken as 1 (counts at that size): ' +
        assumed.map(function (m) { return m.name + ': ' + m.symbols_at_1; }).join('; ') +
        '. Fix them with --input NAME=N or --batch N.'}));
    main.appendChild(t.el);
    plot.addEventListener('mousemove', function (ev) {
      var p = ev.target.closest && ev.target.closest('[data-i]');
      Array.prototype.forEach.call(document.querySelectorAll('.hot'), function (e) { e.classList.remove('hot'); });
      if (!p) { hideTip(); return; }
      var m = view.models[+p.getAttribute('data-i')];
      highlight(+p.getAttribute('data-i'), true);
      showTip(ev, [m.name, ['Params', fmtClever(m.params, 'count') + '  (' + fmtRaw(m.params) + ')'],
                   ['MACs', fmtClever(m.macs, 'count') + '  (' + fmtRaw(m.macs) + ')'],
                   ['FLOPs', fmtClever(m.flops, 'count')], ['DMAs', fmtClever(m.dmas, 'count')]]);
    });
    plot.addEventListener('mouseleave', hideTip);
  }

  /* ==== A diff: before and after side by side ==== */

  /* A metric as the text diff prints it: the value, "≥ v" or "?". */
  function metricText(m, starred) {
    if (!m) return '–';
    if (m.status === 'complete') return fmtRaw(m.value);
    if (m.at_symbols_1 && starred) return fmtRaw(m.known_value) + '*';
    if (m.status === 'partial') return '≥ ' + fmtRaw(m.known_value);
    return '?';
  }

  function deltaText(d, runsDiffer) {
    if (d.delta == null) {
      if (runsDiffer) return 'withheld (runs differ)';
      return d.before.status === 'unavailable' || d.after.status === 'unavailable'
        ? 'withheld (not counted on a side)' : 'withheld (a lower bound: not every node counted)';
    }
    var star = d.before.at_symbols_1 || d.after.at_symbols_1 ? '*' : '';
    var s = (d.delta > 0 ? '+' : '') + fmtRaw(d.delta);
    return (d.delta_pct == null ? s : s + ' (' + (d.delta_pct > 0 ? '+' : '') + d.delta_pct.toFixed(2) + '%)') + star;
  }

  function renderDiff(view, main) {
    var doc = view.doc, differ = !doc.comparable;
    main.appendChild(header(view));
    var runs = card('Runs');
    var rt = el('table', {cls: 'models diff-runs'});
    function inputsText(side) {
      return (side.inputs || []).map(function (v) {
        return v.name + ' ' + (v.dtype || '?') + (v.shape ? '[' + v.shape.join(',') + ']' : '[?]');
      }).join(', ');
    }
    rt.appendChild(el('thead', {}, [el('tr', {}, [el('th', {text: ''}), el('th', {text: 'before'}),
                                                  el('th', {text: 'after'})])]));
    [['model', function (s) { return s.name + (s.path ? ' (' + s.path + ')' : ''); }],
     ['nnscan', function (s) { return s.nnscan_version + ', summary v' + s.schema_version; }],
     ['inputs', inputsText],
     ['parameter dtypes', function (s) { return s.param_dtypes.join(', '); }]].forEach(function (r) {
      rt.appendChild(el('tr', {}, [el('th', {text: r[0]}), el('td', {text: r[1](doc.before)}),
                                   el('td', {text: r[1](doc.after)})]));
    });
    runs.body.appendChild(rt);
    if (differ)
      runs.body.appendChild(el('p', {cls: 'note', text: 'Deltas withheld: ' + doc.withheld_because.join('; ')}));
    if (doc.symbols_note)
      runs.body.appendChild(el('p', {cls: 'note', text: '* ' + doc.symbols_note}));
    main.appendChild(runs.el);
    var tot = card('Totals');
    /* The metrics as the document lists them (the library's one list,
     * NNS_METRIC_MAP), never retyped here. */
    var DIFF_METRICS = Object.keys(doc.totals.metrics);
    var tt = el('table', {cls: 'models diff-totals'});
    tt.appendChild(el('thead', {}, [el('tr', {}, ['Metric', 'before', 'after', 'delta'].map(function (h, i) {
      return el('th', {cls: i ? 'num' : '', text: h});
    }))]));
    DIFF_METRICS.forEach(function (k) {
      var d = doc.totals.metrics[k];
      tt.appendChild(el('tr', {'data-metric': k}, [el('td', {text: k}),
        el('td', {cls: 'num', text: metricText(d.before, !!doc.symbols_note)}), el('td', {cls: 'num', text: metricText(d.after, !!doc.symbols_note)}),
        el('td', {cls: 'num', text: deltaText(d, differ)})]));
    });
    tot.body.appendChild(tt);
    main.appendChild(tot.el);
    if (doc.budgets.length) {
      var bc = card('Budgets');
      var ul = el('ul', {cls: 'notes'});
      doc.budgets.forEach(function (b) {
        ul.appendChild(el('li', {cls: b.status === 'ok' ? 'info' : 'warn', text: b.budget + ': ' + b.status}));
      });
      bc.body.appendChild(ul);
      main.appendChild(bc.el);
    }
    var metric = 'macs';
    var lc = card('Layers', [segmented(DIFF_METRICS.map(function (k) { return {key: k, label: k}; }), metric,
                                       function (o) { metric = o.key; fill(); }, 'Metric')]);
    var lt = el('table', {cls: 'models diff-layers'}), body = el('tbody');
    lt.appendChild(el('thead', {}, [el('tr', {}, ['', 'Layer', 'Type before', 'Type after', 'before', 'after',
                                                   'delta'].map(function (h, i) {
      return el('th', {cls: i > 3 ? 'num' : '', text: h});
    }))]));
    lt.appendChild(body);
    function fill() {
      body.textContent = '';
      doc.changed.forEach(function (r) {
        var d = r.metrics[metric];
        body.appendChild(el('tr', {cls: 'chg', 'data-path': r.path}, [el('td', {text: '~'}),
          el('td', {text: r.path || '(model)'}), el('td', {text: r.type_before}), el('td', {text: r.type_after}),
          el('td', {cls: 'num', text: metricText(d.before, !!doc.symbols_note)}), el('td', {cls: 'num', text: metricText(d.after, !!doc.symbols_note)}),
          el('td', {cls: 'num', text: deltaText(d, differ)})]));
      });
      doc.added.forEach(function (r) {
        body.appendChild(el('tr', {cls: 'add', 'data-path': r.path}, [el('td', {text: '+'}),
          el('td', {text: r.path}), el('td', {text: ''}), el('td', {text: r.type}), el('td', {cls: 'num', text: ''}),
          el('td', {cls: 'num', text: metricText(r.metrics[metric], !!doc.symbols_note)}), el('td', {cls: 'num', text: 'added'})]));
      });
      doc.removed.forEach(function (r) {
        body.appendChild(el('tr', {cls: 'rem', 'data-path': r.path}, [el('td', {text: '−'}),
          el('td', {text: r.path}), el('td', {text: r.type}), el('td', {text: ''}),
          el('td', {cls: 'num', text: metricText(r.metrics[metric], !!doc.symbols_note)}), el('td', {cls: 'num', text: ''}),
          el('td', {cls: 'num', text: 'removed'})]));
      });
    }
    fill();
    lc.body.appendChild(lt);
    main.appendChild(lc.el);
  }

  /* ==== Start ==== */

  function fail(msg) {
    document.body.setAttribute('data-error', msg);
    var b = el('div', {cls: 'fatal', role: 'alert', text: 'This report could not be shown: ' + msg});
    document.body.insertBefore(b, document.body.firstChild);
  }

  /* Phase times for bench/html_render.py: body[data-phases]. */
  var phases = [], lastMark = T0;
  function mark(name) {
    var now = performance.now();
    phases.push(name + '=' + (now - lastMark).toFixed(1));
    lastMark = now;
  }

  function start(text) {
    mark('read');
    var doc = JSON.parse(text);
    mark('parse');
    var kind = doc && doc.schema;
    var adapt = ADAPTERS[kind];
    if (!adapt) { fail('unknown document kind ' + JSON.stringify(kind)); return; }
    var view = adapt(doc);
    mark('adapt');
    var main = el('main', {cls: 'page'});
    document.body.appendChild(main);
    if (view.kind === 'summary') renderSummary(view, main);
    else if (view.kind === 'diff') renderDiff(view, main);
    else renderTable(view, main);
    main.appendChild(el('footer', {}, ['Written by nnscan. Everything on this page comes from the JSON document ' +
      'embedded in it (view the page source); nothing is fetched.']));
    window.nnscanView = view;
    mark('draw');
    document.body.setAttribute('data-phases', phases.join(' '));
    document.body.setAttribute('data-render-ms', (performance.now() - T0).toFixed(1));
    document.body.setAttribute('data-rendered', '1');
  }

  function load() {
    var node = document.getElementById('nnscan-data');
    if (!node) { fail('no data block'); return; }
    var enc = node.getAttribute('data-encoding');
    if (enc !== 'gzip+base64') { start(node.textContent); return; }
    if (typeof DecompressionStream === 'undefined') {
      fail('this browser cannot inflate the embedded document (no DecompressionStream)');
      return;
    }
    var bin = atob(node.textContent.replace(/\s+/g, '')), bytes = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
    new Response(stream).text().then(start)
      .catch(function (e) { fail(String(e)); });
  }

  window.addEventListener('error', function (e) { fail(String(e.message || e)); });
  try { load(); } catch (e) { fail(String(e && e.message || e)); throw e; }
})();
