"""What several Inspectors share on one model or in one process: the lock,
the gradient hooks on parameters, and torch < 2.0's keyword-argument
wrapper on a module's forward. Each is installed by the first inspector
that needs it and taken away by the last."""
import functools
import threading

# Inspectors may overlap in any order (InspectorGadgets([m, m[0]]), or
# a.start(); b.start(); a.finish(); b.finish()). What one leaves on a
# model or in the process must not depend on when another finishes, so
# each shared thing is installed by the first inspector that needs it and
# taken away by the last.

_SHARED_LOCK = threading.RLock()


# id(parameter) -> [hooks of ours on it, its _backward_hooks was None]
_PARAM_HOOKS = {}


def _hook_param(p, fn):
    """p.register_hook(fn), remembering whether p had no hook dict before
    the first inspector's hook."""
    with _SHARED_LOCK:
        e = _PARAM_HOOKS.setdefault(id(p), [0, p._backward_hooks is None])
        e[0] += 1
    return p.register_hook(fn)


def _unhook_param(p, h):
    """Removes h; the last inspector's removal puts the parameter's hook
    dict back to None when it was None and nobody else added a hook."""
    with _SHARED_LOCK:
        h.remove()
        e = _PARAM_HOOKS.get(id(p))
        if e is None:
            return
        e[0] -= 1
        if e[0] == 0:
            del _PARAM_HOOKS[id(p)]
            if e[1] and not p._backward_hooks:
                p._backward_hooks = None


class _KwargsForward:
    """torch < 2.0: hooks do not see keyword arguments, so a module's
    forward is wrapped (an instance attribute, with functools.wraps so its
    signature stays visible) to hand them to each inspector listening.
    One wrapper per module, whatever the number of inspectors: the first
    listener installs it, the last one's leaving removes it and puts back
    what the module had (nothing, or its own instance `forward`)."""
    by_module = {}  # id(module) -> _KwargsForward

    def __init__(self, mod):
        self.mod = mod
        self.had = "forward" in mod.__dict__
        self.before = mod.__dict__.get("forward")
        self.listeners = {}  # key -> fn(kwargs)
        listeners = self.listeners  # the wrapper holds no inspector
        orig = mod.forward

        @functools.wraps(orig)
        def forward(*args, **kwargs):
            if kwargs and listeners:
                for fn in list(listeners.values()):
                    fn(kwargs)
            return orig(*args, **kwargs)
        self.wrapper = forward

    @classmethod
    def listen(cls, mod, key, fn):
        """False when the module takes no attributes (scripted)."""
        with _SHARED_LOCK:
            w = cls.by_module.get(id(mod))
            if w is None:
                w = cls(mod)
                try:
                    object.__setattr__(mod, "forward", w.wrapper)
                except (AttributeError, TypeError, RuntimeError):
                    return False
                cls.by_module[id(mod)] = w
            w.listeners[key] = fn
            return True

    @classmethod
    def leave(cls, mod, key):
        with _SHARED_LOCK:
            w = cls.by_module.get(id(mod))
            if w is None:
                return
            w.listeners.pop(key, None)
            if w.listeners:
                return
            del cls.by_module[id(mod)]
            if mod.__dict__.get("forward") is not w.wrapper:
                return  # replaced since by someone else: theirs stays
            if w.had:
                object.__setattr__(mod, "forward", w.before)
            else:
                object.__delattr__(mod, "forward")
