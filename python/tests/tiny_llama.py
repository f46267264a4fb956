"""A LLaMA-style decoder written out in plain PyTorch (no transformers).

LLaMA-7B's shapes by default: 32 layers, hidden 4096, intermediate 11008,
32 heads, vocab 32000; RMSNorm, rotary position embedding whose cos/sin
caches are non-persistent buffers, a causal mask built in forward, SwiGLU
MLP, untied lm_head. Build it under `torch.device("meta")`-like
construction with `device="meta"` so no weight is ever allocated.
"""
import math

import torch
from torch import nn
import torch.nn.functional as F


class RMSNorm(nn.Module):
    def __init__(self, dim, eps=1e-6, device=None):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(dim, device=device))
        self.eps = eps

    def forward(self, x):
        var = x.pow(2).mean(-1, keepdim=True)
        return self.weight * (x * torch.rsqrt(var + self.eps))


class Rotary(nn.Module):
    def __init__(self, head_dim, max_pos=2048, device=None):
        super().__init__()
        inv = 1.0 / (10000 ** (torch.arange(0, head_dim, 2, device=device).float()
                               / head_dim))
        t = torch.arange(max_pos, device=device).float()
        freqs = torch.outer(t, inv)
        emb = torch.cat((freqs, freqs), dim=-1)
        self.register_buffer("cos_cached", emb.cos(), persistent=False)
        self.register_buffer("sin_cached", emb.sin(), persistent=False)

    def forward(self, seq):
        return self.cos_cached[:seq], self.sin_cached[:seq]


def rotate_half(x):
    h = x.shape[-1] // 2
    return torch.cat((-x[..., h:], x[..., :h]), dim=-1)


class Attention(nn.Module):
    def __init__(self, hidden, heads, device=None):
        super().__init__()
        self.heads, self.head_dim = heads, hidden // heads
        self.q_proj = nn.Linear(hidden, hidden, bias=False, device=device)
        self.k_proj = nn.Linear(hidden, hidden, bias=False, device=device)
        self.v_proj = nn.Linear(hidden, hidden, bias=False, device=device)
        self.o_proj = nn.Linear(hidden, hidden, bias=False, device=device)
        self.rotary = Rotary(self.head_dim, device=device)

    def forward(self, x, mask):
        b, s, _ = x.shape
        q = self.q_proj(x).view(b, s, self.heads, self.head_dim).transpose(1, 2)
        k = self.k_proj(x).view(b, s, self.heads, self.head_dim).transpose(1, 2)
        v = self.v_proj(x).view(b, s, self.heads, self.head_dim).transpose(1, 2)
        cos, sin = self.rotary(s)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        att = torch.matmul(q, k.transpose(2, 3)) / math.sqrt(self.head_dim)
        att = F.softmax(att + mask, dim=-1)
        out = torch.matmul(att, v).transpose(1, 2).reshape(b, s, -1)
        return self.o_proj(out)


class MLP(nn.Module):
    def __init__(self, hidden, inter, device=None):
        super().__init__()
        self.gate_proj = nn.Linear(hidden, inter, bias=False, device=device)
        self.up_proj = nn.Linear(hidden, inter, bias=False, device=device)
        self.down_proj = nn.Linear(inter, hidden, bias=False, device=device)

    def forward(self, x):
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))


class DecoderLayer(nn.Module):
    def __init__(self, hidden, inter, heads, device=None):
        super().__init__()
        self.input_layernorm = RMSNorm(hidden, device=device)
        self.self_attn = Attention(hidden, heads, device=device)
        self.post_attention_layernorm = RMSNorm(hidden, device=device)
        self.mlp = MLP(hidden, inter, device=device)

    def forward(self, x, mask):
        x = x + self.self_attn(self.input_layernorm(x), mask)
        return x + self.mlp(self.post_attention_layernorm(x))


class LlamaForCausalLM(nn.Module):
    def __init__(self, layers=32, hidden=4096, inter=11008, heads=32,
                 vocab=32000, device=None):
        super().__init__()
        self.embed_tokens = nn.Embedding(vocab, hidden, device=device)
        self.layers = nn.ModuleList(DecoderLayer(hidden, inter, heads, device)
                                    for _ in range(layers))
        self.norm = RMSNorm(hidden, device=device)
        self.lm_head = nn.Linear(hidden, vocab, bias=False, device=device)

    def forward(self, input_ids, attention_mask=None):
        b, s = input_ids.shape
        x = self.embed_tokens(input_ids)
        mask = torch.full((s, s), float("-inf"), device=x.device).triu(1)
        if attention_mask is not None:
            pad = (1.0 - attention_mask[:, None, None, :].to(x.dtype)) * -1e9
            mask = mask + pad
        for layer in self.layers:
            x = layer(x, mask)
        return self.lm_head(self.norm(x))


def matmul_macs(layers=32, hidden=4096, inter=11008, heads=32, vocab=32000,
                batch=1, seq=128):
    """MACs of every matrix product, by hand: projections, attention, MLP,
    lm_head (element-wise work has no MACs)."""
    d = hidden // heads
    per_layer = (4 * seq * hidden * hidden          # q, k, v, o projections
                 + 2 * heads * seq * seq * d        # q k^T and att v
                 + 3 * seq * hidden * inter)        # gate, up, down
    return batch * (layers * per_layer + seq * hidden * vocab)
