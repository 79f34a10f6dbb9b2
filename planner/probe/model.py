"""The decoder-only transformer the probe trains and decodes: the shapes it runs, as flopfit's
engine can predict them, and their PyTorch build with random weights."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class StepShape:
    """A decoder-only transformer step the probe runs and flopfit's engine can predict."""

    name: str
    layers: int
    hidden: int
    heads: int
    kv_heads: int
    ffn: int
    vocab: int
    seq_len: int
    micro_batch: int

    @property
    def params(self) -> int:
        head_dim = self.hidden // self.heads
        attn = (
            self.hidden * (self.hidden + 2 * self.kv_heads * head_dim) + self.hidden * self.hidden
        )
        mlp = 3 * self.hidden * self.ffn
        return (
            self.layers * (attn + mlp + 2 * self.hidden)
            + 2 * self.vocab * self.hidden
            + self.hidden
        )


TRAINING_STEPS = (
    # name, layers, hidden, heads, kv_heads, ffn, vocab, seq_len, micro_batch
    StepShape("small", 8, 2048, 16, 16, 5632, 32000, 2048, 4),
    StepShape("medium", 16, 3072, 24, 8, 8192, 32000, 2048, 2),
)
DECODE = {"step": "small", "batch": 32, "context": 2048}


def build_model(torch, shape: StepShape):
    nn, F = torch.nn, torch.nn.functional
    head_dim = shape.hidden // shape.heads

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.norm1 = nn.RMSNorm(shape.hidden)
            self.qkv = nn.Linear(
                shape.hidden, shape.hidden + 2 * shape.kv_heads * head_dim, bias=False
            )
            self.out = nn.Linear(shape.hidden, shape.hidden, bias=False)
            self.norm2 = nn.RMSNorm(shape.hidden)
            self.up = nn.Linear(shape.hidden, 2 * shape.ffn, bias=False)
            self.down = nn.Linear(shape.ffn, shape.hidden, bias=False)

        def forward(self, x, cache=None):
            b, s, _ = x.shape
            q, k, v = self.qkv(self.norm1(x)).split(
                [shape.hidden, shape.kv_heads * head_dim, shape.kv_heads * head_dim], dim=-1
            )
            q = q.view(b, s, shape.heads, head_dim).transpose(1, 2)
            k = k.view(b, s, shape.kv_heads, head_dim).transpose(1, 2)
            v = v.view(b, s, shape.kv_heads, head_dim).transpose(1, 2)
            if cache is not None:
                # Decode reads the cached keys and values in place, as a paged KV cache does;
                # concatenating would copy the whole cache every step and time the copy.
                k, v = cache
            attn = F.scaled_dot_product_attention(
                q, k, v, is_causal=cache is None, enable_gqa=shape.kv_heads != shape.heads
            )
            x = x + self.out(attn.transpose(1, 2).reshape(b, s, shape.hidden))
            gate, up = self.up(self.norm2(x)).chunk(2, dim=-1)
            return x + self.down(F.silu(gate) * up)

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = nn.Embedding(shape.vocab, shape.hidden)
            self.blocks = nn.ModuleList(Block() for _ in range(shape.layers))
            self.norm = nn.RMSNorm(shape.hidden)
            self.head = nn.Linear(shape.hidden, shape.vocab, bias=False)

        def forward(self, tokens, caches=None):
            x = self.embed(tokens)
            for i, block in enumerate(self.blocks):
                x = block(x, None if caches is None else caches[i])
            return self.head(self.norm(x))

    return Model()
