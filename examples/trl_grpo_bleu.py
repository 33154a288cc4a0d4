"""Fine-tune a model with TRL's GRPO trainer and a BLEU reward from bleustream.

Everything is made here, nothing is downloaded: a word-level tokenizer
trained with the ``tokenizers`` library on the example's own sentences, a
tiny Llama model built from a config (random weights), and a dataset of
translation prompts with a ``reference`` column, which ``rewards.bleu``
reads.  A real run loads a pretrained model and a real dataset instead; the
reward is the same.

    pip install 'bleustream[trl]'
    python examples/trl_grpo_bleu.py --max-steps 2 --output-dir /tmp/grpo

It prints, for each logged step, the step and the mean BLEU reward (a
fraction, 0 to 1: ``rewards.bleu`` is SacreBLEU's sentence BLEU / 100).
"""

from __future__ import annotations

import argparse
import json

from datasets import Dataset
from tokenizers import Tokenizer, models, pre_tokenizers, trainers
from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast
from trl import GRPOConfig, GRPOTrainer

from bleustream import rewards

PAIRS = [
    ("Das Haus ist klein .", "The house is small ."),
    ("Der Hund schläft .", "The dog is sleeping ."),
    ("Ich trinke Wasser .", "I drink water ."),
    ("Die Katze ist schwarz .", "The cat is black ."),
    ("Wir gehen nach Hause .", "We are going home ."),
    ("Das Wetter ist gut .", "The weather is good ."),
    ("Er liest ein Buch .", "He is reading a book ."),
    ("Sie kauft Brot .", "She buys bread ."),
]
PROMPT = "translate German to English : {source} =>"
SPECIAL = ["[PAD]", "[UNK]", "[BOS]", "[EOS]"]


def build_tokenizer() -> PreTrainedTokenizerFast:
    """A word-level tokenizer trained on the prompts and references."""
    tok = Tokenizer(models.WordLevel(unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    lines = [PROMPT.format(source=src) for src, _ in PAIRS] + [ref for _, ref in PAIRS]
    tok.train_from_iterator(lines, trainers.WordLevelTrainer(special_tokens=SPECIAL))
    return PreTrainedTokenizerFast(
        tokenizer_object=tok,
        pad_token="[PAD]",
        unk_token="[UNK]",
        bos_token="[BOS]",
        eos_token="[EOS]",
    )


def build_model(tokenizer: PreTrainedTokenizerFast) -> LlamaForCausalLM:
    """A one-layer Llama of random weights, the tokenizer's vocabulary wide."""
    config = LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=1,
        num_attention_heads=2,
        num_key_value_heads=2,
        max_position_embeddings=64,
        pad_token_id=tokenizer.pad_token_id,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
    )
    return LlamaForCausalLM(config)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-steps", type=int, default=2)
    parser.add_argument("--output-dir", required=True)
    args = parser.parse_args(argv)

    tokenizer = build_tokenizer()
    model = build_model(tokenizer)
    dataset = Dataset.from_dict(
        {
            "prompt": [PROMPT.format(source=src) for src, _ in PAIRS],
            "reference": [ref for _, ref in PAIRS],  # what rewards.bleu reads
        }
    )
    config = GRPOConfig(
        output_dir=args.output_dir,
        max_steps=args.max_steps,
        per_device_train_batch_size=4,
        num_generations=4,
        max_completion_length=8,
        learning_rate=1e-3,
        logging_steps=1,
        save_strategy="no",
        report_to="none",
        use_cpu=True,
        seed=0,
    )
    trainer = GRPOTrainer(
        model=model,
        reward_funcs=[rewards.bleu],
        args=config,
        train_dataset=dataset,
        processing_class=tokenizer,
    )
    trainer.train()
    for entry in trainer.state.log_history:
        if "rewards/bleu/mean" in entry:
            print(json.dumps({"step": entry["step"], "bleu_reward": entry["rewards/bleu/mean"]}))


if __name__ == "__main__":
    main()
