"""A minimal Chrome DevTools Protocol client over --remote-debugging-pipe,
for the HTML report's browser tests (test_html.py) and its benchmark
(bench/html_render.py). Standard library only: Debian's chromium, no
WebDriver, no websocket module.

Chromium reads commands from fd 3 and writes replies and events to fd 4,
each message a JSON object ended by a NUL byte. The browser runs headless,
as root in CI (--no-sandbox), with networking disabled: every host
resolves to nothing and every request would go to a dead proxy, so a page
that tried to fetch anything fails loudly, and the tests also watch the
Network domain for any request at all.
"""
import json
import os
import select
import shutil
import subprocess
import tempfile
import time

OFFLINE_FLAGS = [
    '--proxy-server=127.0.0.1:9',
    '--host-resolver-rules=MAP * ~NOTFOUND',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--no-first-run',
    '--no-default-browser-check',
    '--disable-default-apps',
    '--disable-extensions',
]


def find_chromium():
    for name in ('chromium', 'chromium-browser', 'google-chrome'):
        path = shutil.which(name)
        if path:
            return path
    return None


class Browser:
    """One headless browser; one page (target) at a time through page()."""

    def __init__(self, width=1480, height=1000, binary=None):
        self.profile = tempfile.mkdtemp(prefix='nnscan-chromium-')
        to_r, to_w = os.pipe()
        fr_r, fr_w = os.pipe()
        # The child must see them as fds 3 and 4: park them high first so
        # that the dup2 calls in the child cannot clobber each other.
        hi_r, hi_w = os.dup2(to_r, 200), os.dup2(fr_w, 201)

        def child_fds():
            os.dup2(hi_r, 3)
            os.dup2(hi_w, 4)

        args = [binary or find_chromium(), '--headless', '--no-sandbox',
                '--disable-gpu', '--disable-dev-shm-usage',
                '--remote-debugging-pipe', '--user-data-dir=' + self.profile,
                '--window-size=%d,%d' % (width, height),
                '--hide-scrollbars', '--force-device-scale-factor=1',
                *OFFLINE_FLAGS, 'about:blank']
        self.stderr = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(args, close_fds=False, preexec_fn=child_fds,
                                     stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=self.stderr)
        for fd in (to_r, fr_w, hi_r, hi_w):
            os.close(fd)
        self.w, self.r = to_w, fr_r
        self.buf = b''
        self.next_id = 0
        self.events = []
        self.width, self.height = width, height

    def close(self):
        try:
            self.call('Browser.close', timeout=5)
        except Exception:
            pass
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self.w)
        os.close(self.r)
        shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _recv(self, deadline):
        while b'\0' not in self.buf:
            left = deadline - time.time()
            if left <= 0:
                raise TimeoutError('no answer from chromium')
            ready, _, _ = select.select([self.r], [], [], left)
            if ready:
                chunk = os.read(self.r, 1 << 20)
                if not chunk:
                    self.stderr.seek(0)
                    raise EOFError('chromium exited: ' +
                                   self.stderr.read().decode(errors='replace')[-2000:])
                self.buf += chunk
        msg, _, self.buf = self.buf.partition(b'\0')
        return json.loads(msg)

    def call(self, method, params=None, session=None, timeout=60):
        self.next_id += 1
        msg = {'id': self.next_id, 'method': method, 'params': params or {}}
        if session:
            msg['sessionId'] = session
        os.write(self.w, json.dumps(msg).encode() + b'\0')
        deadline = time.time() + timeout
        while True:
            m = self._recv(deadline)
            if m.get('id') == self.next_id:
                if 'error' in m:
                    raise RuntimeError('%s: %s' % (method, m['error']))
                return m.get('result', {})
            self.events.append(m)

    def pump(self, seconds):
        """Collects events for a while."""
        deadline = time.time() + seconds
        try:
            while True:
                self.events.append(self._recv(deadline))
        except TimeoutError:
            pass

    def page(self):
        return Page(self)


class Page:
    def __init__(self, browser):
        self.b = browser
        self.target = browser.call('Target.createTarget', {'url': 'about:blank'})['targetId']
        self.s = browser.call('Target.attachToTarget',
                              {'targetId': self.target, 'flatten': True})['sessionId']
        for domain in ('Page', 'Runtime', 'Network', 'Log'):
            self.call(domain + '.enable')
        self.call('Emulation.setDeviceMetricsOverride',
                  {'width': browser.width, 'height': browser.height,
                   'deviceScaleFactor': 1, 'mobile': False})

    def call(self, method, params=None, timeout=60):
        return self.b.call(method, params, self.s, timeout)

    def events(self, method=None):
        return [e for e in self.b.events
                if e.get('sessionId') == self.s and (method is None or e.get('method') == method)]

    def open(self, url, ready='document.body && document.body.dataset.rendered === "1"',
             timeout=60):
        """Navigates and waits until the page says it has rendered (or has
        failed); returns seconds from navigation to ready."""
        t0 = time.time()
        self.call('Page.navigate', {'url': url})
        deadline = t0 + timeout
        while time.time() < deadline:
            r = self.eval('(%s) || !!(document.body && document.body.dataset.error)' % ready)
            if r:
                return time.time() - t0
            time.sleep(0.02)
        raise TimeoutError('the page did not render within %ds' % timeout)

    def eval(self, expr):
        r = self.call('Runtime.evaluate', {'expression': expr, 'returnByValue': True,
                                           'awaitPromise': True})
        if 'exceptionDetails' in r:
            raise RuntimeError('page script failed: %s' % json.dumps(r['exceptionDetails'])[:2000])
        return r['result'].get('value')

    def screenshot(self, path, full=True):
        import base64
        params = {'format': 'png'}
        if full:
            m = self.call('Page.getLayoutMetrics')
            size = m.get('cssContentSize') or m['contentSize']
            params['clip'] = {'x': 0, 'y': 0, 'width': size['width'],
                              'height': min(size['height'], 6000), 'scale': 1}
            params['captureBeyondViewport'] = True
        data = self.call('Page.captureScreenshot', params)['data']
        with open(path, 'wb') as f:
            f.write(base64.b64decode(data))

    def problems(self):
        """Console errors, uncaught exceptions and any network request."""
        out = []
        for e in self.events('Runtime.exceptionThrown'):
            out.append('exception: ' + json.dumps(e['params']['exceptionDetails'])[:500])
        for e in self.events('Runtime.consoleAPICalled'):
            if e['params']['type'] in ('error', 'assert', 'warning'):
                out.append('console.%s: %s' % (e['params']['type'],
                           json.dumps(e['params']['args'])[:500]))
        for e in self.events('Log.entryAdded'):
            if e['params']['entry']['level'] in ('error', 'warning'):
                out.append('log: ' + e['params']['entry'].get('text', '')[:500])
        for e in self.events('Network.requestWillBeSent'):
            url = e['params']['request']['url']
            if not url.startswith(('file:', 'about:', 'data:', 'blob:')):
                out.append('request: ' + url)
        return out
