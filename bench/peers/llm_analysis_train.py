"""llm-analysis's training analysis of the question bench/speed_report.py times flopfit on:
Llama 3 70B on 64 H100 (tensor 8, pipeline 4, data 2), global batch 512 of 4,096 tokens, full
recompute. Run by speed_report.py in the interpreter that has llm-analysis (`make bench-peers`
installs it in .venv-peers, apart from flopfit's environment); prints CPU seconds per analysis,
the least over three rounds of 200, as JSON.

llm-analysis 0.2.2 takes the MLP width as a whole multiple of the hidden size, so its 70B has
4 x 8,192 = 32,768 where Llama 3 70B has 28,672; the arithmetic it does per question is the same.
"""

import json
import logging
import time

from llm_analysis.analysis import ActivationRecomputation, LLMAnalysis
from llm_analysis.config import DtypeConfig, GPUConfig, ModelConfig, ParallelismConfig

ROUNDS, CALLS = 3, 200

logging.disable(logging.CRITICAL)
MODEL = ModelConfig(
    name="llama-3-70b",
    num_layers=80,
    n_head=64,
    hidden_dim=8192,
    vocab_size=128256,
    max_seq_len=4096,
    num_key_value_heads=8,
    ffn_embed_dim=4 * 8192,
)
GPU = GPUConfig(
    name="h100-sxm",
    mem_per_GPU_in_GB=80,
    hbm_bandwidth_in_GB_per_sec=3350,
    intra_node_bandwidth_in_GB_per_sec=450,
    intra_node_min_message_latency=3e-6,
    peak_fp16_TFLOPS=989.4,
    inter_node_bandwidth_in_GB_per_sec=50,
)


def analysis() -> dict:
    model = LLMAnalysis(
        MODEL, GPU, DtypeConfig(), ParallelismConfig(tp_size=8, pp_size=4, dp_size=2)
    )
    return model.training(
        global_batch_size=512,
        seq_len=4096,
        total_num_tokens=2e12,
        batch_size_per_gpu=1,
        activation_recomputation=ActivationRecomputation.FULL,
    )


def main() -> None:
    analysis()
    best = float("inf")
    for _ in range(ROUNDS):
        start = time.process_time()
        for _ in range(CALLS):
            analysis()
        best = min(best, (time.process_time() - start) / CALLS)
    print(json.dumps({"seconds": best}))


if __name__ == "__main__":
    main()
