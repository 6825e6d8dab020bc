"""A sentence that is a keyword list: a regime's name standing alone as one of its items, beside
`commit.keyword_terms` (context.yaml) or more lever names standing alone ("Possible factors:
launch overhead, CUDA graphs, torch.compile, kernel fusion, bandwidth-bound, compute-bound, batch
size, int8 quantization", sealed395 e.s3980, instructor 0: nothing committed to). It names its
terms and argues for none, so neither its regime nor its levers are taken as the answer's."""

from __future__ import annotations

from regime.engine.grading.concepts import Concepts, clauses


def bare_names(concepts: Concepts, kind: str, sentence: str) -> list[str]:
    """The sentence's clauses that are a name of `kind` and nothing else."""
    return [c for c in clauses(sentence) if (m := concepts.find(kind, c))
            and concepts.words(c) == concepts.words(m[0].phrase)]


def keyword_list(concepts: Concepts | None, sentence: str) -> bool:
    """The context file's `commit.keyword_terms` bare lever names or more, and a bare regime."""
    if concepts is None or concepts.context is None:
        return False
    return bool(bare_names(concepts, "regime", sentence)) \
        and len(bare_names(concepts, "lever", sentence)) >= concepts.context.keyword_terms
