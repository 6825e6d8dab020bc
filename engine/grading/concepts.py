"""Read free text for concepts: levers, claims, regimes and facts, through their declared aliases.

Matching is by whole words after normalizing (lower case, contractions expanded, filler words
and plural -s dropped), longest alias first. An alias that is part of another concept's alias
("batching" inside "continuous batching") names both: it is resolved by the words around it or
reported as ambiguous, never credited to one silently. Negation is judged per clause.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from regime.engine.grading.concepts_file import ConceptsFile, read_concepts
from regime.engine.grading.cue_spans import CueSpans
from regime.engine.grading.wording import Verbs, compounded, words
from regime.engine.knowledge.model import Knowledge
from regime.facts.vocabulary import Vocabulary

_TYPO_MIN = 4           # shorter words are never read as a misspelling of another
_TYPO_CUTOFF = 0.84     # difflib ratio for reading an unknown word as a known one
_CLAUSE = re.compile(r"[.;:!?,()\[\]—–→⇒]|\s=?-+>?\s|\b(?:but|however|whereas|although|though|while)\b", re.I)


@dataclass(frozen=True)
class Match:
    kind: str                  # lever | claim | regime | fact
    concepts: tuple[str, ...]  # one concept, or several when the alias is ambiguous
    phrase: str                # the alias as written in the declaration
    start: int                 # word index in the clause
    negated: bool = False


@dataclass
class Concepts:
    """Alias index over the loaded knowledge plus rules/grading/concepts.yaml."""

    phrases: dict[str, dict[tuple[str, ...], set[str]]] = field(default_factory=dict)
    starts: dict[str, dict[str, tuple[int, ...]]] = field(default_factory=dict)  # first word -> lengths
    shown: dict[tuple[str, tuple[str, ...]], str] = field(default_factory=dict)
    meanings: dict[str, set[str]] = field(default_factory=dict)   # lever -> context words
    relieves: dict[str, frozenset[str]] = field(default_factory=dict)   # lever -> regimes it attacks
    refusals: dict[str, tuple[str, ...]] = field(default_factory=dict)   # see reading._standing_for
    kin: dict[str, tuple[str, ...]] = field(default_factory=dict)        # see reading._standing_for
    done_by: dict[str, tuple[str, ...]] = field(default_factory=dict)   # see penalties.extras
    not_objects: dict[str, frozenset[str]] = field(default_factory=dict)   # "batch up the launches"
    kept: frozenset[tuple[str, ...]] = frozenset()   # "keep the batch where it is": refuses raise_batch
    stands_for: dict[str, tuple[str, ...]] = field(default_factory=dict)   # see reading.stand_in
    verbs: Verbs = field(default_factory=Verbs)   # 'batch' names levers only as a verb
    headings: dict[tuple[str, ...], str] = field(default_factory=dict)
    filler: frozenset[str] = frozenset()
    compounds: frozenset[tuple[str, str]] = frozenset()   # ('instead', 'of') -> 'instead_of'
    neg_before: tuple[tuple[str, ...], ...] = ()
    neg_anywhere: tuple[tuple[str, ...], ...] = ()
    nominal: tuple[tuple[str, ...], ...] = ()
    limiters: tuple[tuple[str, ...], ...] = ()   # 'limited by', then a regime word within `limiter_within`
    limits: tuple[tuple[str, ...], ...] = ()     # 'is the limit', after a regime word as near
    limit_nouns: frozenset[str] = frozenset()    # 'a memory-bandwidth problem': right after one
    limiter_within: int = 0
    limit_conditions: frozenset[str] = frozenset()   # 'when' before a limiter: a condition, not the step
    neg_before_text: tuple[str, ...] = ()      # the cues as ' word word ', for substring tests
    neg_anywhere_text: tuple[str, ...] = ()
    ignore: frozenset[str] = frozenset()
    claim_ids: frozenset[str] = frozenset()
    guess_min: float = 1.5
    guess_margin: float = 1.5
    _vocabs: dict[str, dict[str, set[str]]] = field(default_factory=dict)
    _rarity: dict[str, dict[str, float]] = field(default_factory=dict)
    vocabulary: Vocabulary | None = None          # facts' own words (`say`), which reports use too
    figure_say: dict[str, str] = field(default_factory=dict)                      # fact -> plain name
    figure_words: dict[str, tuple[tuple[str, ...], ...]] = field(default_factory=dict)
    figure_factors: frozenset[str] = frozenset()   # gains also written as factors (1 + gain)
    known: frozenset[str] = frozenset()        # every word an alias, heading or cue uses
    known_by_letter: dict[str, tuple[str, ...]] = field(default_factory=dict)
    keep: frozenset[str] = frozenset()         # words never read as typos
    short: dict[str, str] = field(default_factory=dict)   # a short form -> the word ('mem' -> 'memory')
    context: Any = None                         # assertion-status triggers (grading/context.py)
    reasons: Any = None                         # reason-word weights (grading/reasons.py)

    def words(self, text: str) -> list[str]:
        return list(self._words(text))

    @lru_cache(maxsize=8192)  # noqa: B019 - one Concepts per grader, texts repeat across a class
    def _words(self, text: str) -> tuple[str, ...]:
        ws = compounded([self.short.get(w, w) for w in words(text)], self.compounds)   # "what I'd do
        #   instead is X" recommends X; "instead of X" refuses it
        return tuple(self._spelled(w) for w in ws if w not in self.filler)

    @lru_cache(maxsize=16384)  # noqa: B019
    def _spelled(self, word: str) -> str:
        """A word no alias uses, read as the known word it misspells ('compiel' -> 'compile'),
        as an instructor reads a typo. Never a cue word (a typo must not create a negation), never
        across a first letter, never a short word or one with digits, never a word listed under
        `spelling.keep` (common words near an alias word: 'using' is not 'fusing')."""
        if (not self.known or word in self.known or word in self.keep or len(word) < _TYPO_MIN
                or any(c.isdigit() for c in word)):
            return word
        pool = self.known_by_letter.get(word[0], ())
        swapped = {word[:i] + word[i + 1] + word[i] + word[i + 2:] for i in range(1, len(word) - 1)}
        if len(hit := swapped & set(pool)) == 1:   # two letters swapped: 'grpahs' is 'graphs'
            return hit.pop()
        close = difflib.get_close_matches(word, pool, n=2, cutoff=_TYPO_CUTOFF)
        return close[0] if len(close) == 1 or (close and _ratio(word, close[0]) > _ratio(word, close[1])) \
            else word

    def __hash__(self) -> int:
        return id(self)

    def index(self) -> None:
        """First word -> candidate phrase lengths (longest first), for matching."""
        for kind, table in self.phrases.items():
            lengths: dict[str, set[int]] = {}
            for phrase in table:
                lengths.setdefault(phrase[0], set()).add(len(phrase))
            self.starts[kind] = {w: tuple(sorted(ns, reverse=True)) for w, ns in lengths.items()}

    def add(self, kind: str, concept: str, alias: str) -> None:
        key = tuple(self.words(alias))
        if key:
            self.phrases.setdefault(kind, {}).setdefault(key, set()).add(concept)
            self.shown.setdefault((kind, key), alias)

    def resolve(self, kind: str, name: str) -> tuple[str, ...]:
        """Concepts an id or alias (as written in a YAML answer) names: none, one, or several."""
        table = self.phrases.get(kind, {})
        found = table.get(tuple(self.words(name))) or table.get(tuple(self.words(name.replace("_", " ")))) \
            or (kind == "lever" and set(self.verbs.levers.get(" ".join(self.words(name)), ())))
        return tuple(sorted(found or set()))   # 'memory_bound' is how an id-minded student spells an alias

    def find(self, kind: str, clause: str, context: str = "") -> list[Match]:
        """Non-overlapping alias matches in one clause, longest first, with negation judged;
        `context` (the whole item) supplies the words that can resolve an ambiguous alias."""
        ws = self._words(clause)
        table = self.phrases.get(kind, {})
        starts = self.starts.get(kind, {})
        out: list[Match] = []
        around = set(self._words(context)) if context else set(ws)  # once per clause, not per match
        cues = CueSpans(ws, self.neg_before, self.neg_anywhere)
        chosen: dict[tuple[str, ...], tuple[str, ...]] = {}
        i = 0
        while i < len(ws):
            for n in starts.get(ws[i], ()):
                key = ws[i:i + n]
                if key in table:
                    concepts = chosen.get(key)
                    if concepts is None:  # the same alias again: the same words around it
                        concepts = chosen[key] = self._disambiguate(kind, table[key], around, key)
                    if not self._acts_on_another(concepts, ws[i + n:i + n + 1]):
                        out.append(Match(kind, concepts, self.shown[(kind, key)], i, cues.negated(i, n)))
                    i += n
                    break
            else:
                if kind == "lever" and (named := self.verbs.levers_at(ws, i)):
                    concepts = self._disambiguate(kind, set(named), around, ws[i:i + 1])
                    out.append(Match(kind, concepts, ws[i], i, cues.negated(i, 1)))
                i += 1
        return out

    def _acts_on_another(self, concepts: tuple[str, ...], after: tuple[str, ...]) -> bool:
        """An alias whose object names something else (concepts.yaml `not_objects`): "CUDA graphs
        to batch up the launches" (sealed261 e.s2639) batches no requests."""
        return bool(after) and all(after[0] in self.not_objects.get(c, ()) for c in concepts)

    def _disambiguate(self, kind: str, concepts: set[str], around: set[str],
                      key: tuple[str, ...]) -> tuple[str, ...]:
        """The concepts whose meaning shares most words with `around` (less the alias itself and
        ignored words); cost in the size of the meanings, not of the item (a long item is one set)."""
        if len(concepts) == 1 or kind != "lever":
            return tuple(sorted(concepts))
        scores = {c: sum(1 for w in self.meanings.get(c, ()) if w in around and w not in key
                         and w not in self.ignore) for c in concepts}
        best = max(scores.values())
        winners = tuple(sorted(c for c, s in scores.items() if s == best))
        return winners if best > 0 else tuple(sorted(concepts))

    def closest(self, kind: str, text: str) -> str | None:
        """The concept whose aliases and meaning share most words with `text` (for 'did you
        mean'), or None when nothing is shared."""
        ranked = self._ranked(kind, text)
        return ranked[0][1] if ranked else None

    def guess(self, kind: str, text: str) -> str | None:
        """The concept `text` means when it names none by alias but its distinctive words point
        to one clearly ('fuse RMSNorm and SiLU into neighbouring kernels'): a score of at least
        `guess.min_score` and `guess.margin` times the runner-up (concepts.yaml)."""
        ranked = self._ranked(kind, text)
        if not ranked or ranked[0][0] < self.guess_min:
            return None
        if len(ranked) > 1 and ranked[0][0] < self.guess_margin * ranked[1][0]:
            return None
        return ranked[0][1]

    def best(self, kind: str, text: str) -> float:
        """How strongly `text` points to its likeliest concept of `kind` by meaning (0: none)."""
        return next(iter(self._ranked(kind, text)), (0.0, ""))[0]

    def _ranked(self, kind: str, text: str) -> list[tuple[float, str]]:
        """Concepts by the summed rarity (1 / concepts using the word) of the words they share."""
        ws = set(self._words(text)) - self.ignore - self.filler
        out = []
        for concept, vocab in self._vocab(kind).items():
            score = sum(self._rarity[kind].get(w, 0.0) for w in ws & vocab)
            if score:
                out.append((round(score, 6), concept))
        return sorted(out, key=lambda sc: (-sc[0], sc[1]))

    def _vocab(self, kind: str) -> dict[str, set[str]]:
        cached = self._vocabs.get(kind)
        if cached is None:
            cached = {}
            for concept, meaning in sorted(self.meanings.items()):
                if (kind == "claim") != (concept in self.claim_ids):
                    continue
                cached[concept] = meaning | {w for key, owners in self.phrases.get(kind, {}).items()
                                             if concept in owners and key not in self.kept for w in key}
                #   (not "keep the batch where it is": its words say what is left alone, not the lever)
            users: dict[str, int] = {}
            for vocab in cached.values():
                for w in vocab:
                    users[w] = users.get(w, 0) + 1
            self._rarity[kind] = {w: 1.0 / n for w, n in users.items()}
            self._vocabs[kind] = cached
        return cached

    def say(self, fact: str) -> str:
        """A figure as a student would name it: the concepts file's words, else the fact's own
        (its declaration's `say`), else its name read as words."""
        return (self.figure_say.get(fact) or (self.vocabulary and self.vocabulary.say(fact))
                or " ".join(fact.replace("__", " of ").split("_")))

    def near(self, fact: str, context: tuple[str, ...]) -> bool:
        """Whether `context` (the words of a sentence or bullet) names the figure `fact`."""
        cues = self.figure_words.get(fact)
        if cues is None:
            cues = self.figure_words[fact] = tuple((w,) for w in self.words(fact.replace("_", " ")))
        return any(_contains(list(context), cue) for cue in cues)

    def negates(self, text: str) -> bool:
        """Whether `text` carries a negation cue anywhere (for an item read by its meaning)."""
        ws = f" {' '.join(self._words(text))} "
        return any(cue in ws for cue in (*self.neg_before_text, *self.neg_anywhere_text))

    def is_nominal(self, clause: str, phrase: str = "", stops: frozenset[str] = frozenset()) -> bool:
        """A nominal cue in the clause; with `phrase`, in its part between the `stops` words around
        it ("launch-overhead bound even though it is nominally bandwidth-bound": only the second)."""
        ws = list(self._words(clause))
        if phrase and stops:
            ws = _part(ws, list(self._words(phrase)), stops)
        return any(_contains(ws, cue) for cue in self.nominal)

    def heading(self, text: str) -> str | None:
        """The template section a heading or label names; one numbered after its name is that
        section's item ("Fix 1: continous batching. ...", "Fix 2: int8 weights", sealed152 a.s1549)."""
        ws = self._words(text)
        if ws not in self.headings and len(ws) > 1 and ws[-1].isdigit():
            ws = ws[:-1]
        return self.headings.get(ws)


def _part(ws: list[str], phrase: list[str], stops: frozenset[str]) -> list[str]:
    """The words between the stop words on either side of `phrase`'s first occurrence in `ws`."""
    n = len(phrase)
    at = next((i for i in range(len(ws) - n + 1) if ws[i:i + n] == phrase), None)
    if at is None:
        return ws
    lo = max((i + 1 for i in range(at) if ws[i] in stops), default=0)
    hi = next((i for i in range(at + n, len(ws)) if ws[i] in stops), len(ws))
    return ws[lo:hi]


def _ratio(a: str, b: str) -> float:
    return difflib.SequenceMatcher(None, a, b).ratio()


def clauses(text: str) -> list[str]:
    return [c for c in _CLAUSE.split(text) if c and c.strip()]


def _contains(ws: list[str], cue: tuple[str, ...]) -> bool:
    n = len(cue)
    return any(tuple(ws[j:j + n]) == cue for j in range(len(ws) - n + 1))


def load_concepts(k: Knowledge, files: Iterable[Path]) -> Concepts:
    """The alias index: packs' levers and claims, the grading layer's regimes, facts and headings
    (rules/grading/concepts.yaml and its layers, read and validated by concepts_file)."""
    raw = read_concepts(files, k.levers, k.claims)
    pairs = [words(x) for x in raw.compounds]
    c = Concepts(filler=frozenset(words(" ".join(raw.filler))), claim_ids=frozenset(k.claims),
                 compounds=frozenset((p[0], p[1]) for p in pairs if len(p) == 2),
                 guess_min=raw.guess.min_score, guess_margin=raw.guess.margin, short=dict(raw.spelling.short))
    _cues(c, raw)
    _aliases(c, k, raw)
    c.refusals = {lever: tuple(others) for lever, others in raw.refusals.items()}
    c.kin = {lever: tuple(others) for lever, others in raw.kin.items()}
    c.done_by = {lever: tuple(others) for lever, others in raw.done_by.items()}
    c.stands_for = {lever: tuple(others) for lever, others in raw.stands_for.items()}
    c.not_objects = {lever: frozenset(w for p in said for w in c.words(p))
                     for lever, said in raw.not_objects.items()}
    c.kept = frozenset(tuple(c.words(p)) for said in raw.kept.values() for p in said)
    c.verbs = Verbs({w: tuple(ls) for w, ls in raw.verbs.levers.items()},
                    *(frozenset(c.words(" ".join(ws))) for ws in (raw.verbs.before, raw.verbs.not_after)))
    for section, aliases in raw.headings.items():
        for alias in (section, *aliases):
            c.headings[tuple(c.words(alias))] = section
    c.vocabulary = k.vocabulary  # the words reports use; the concepts file's `say` overrides them
    c.figure_say.update({name: p.say for name, p in k.parameters.items() if p.say})
    for fact, figure in raw.figures.items():
        if figure.say:
            c.figure_say[fact] = figure.say
        cues = [*figure.words, fact.replace("_", " ")]
        c.figure_words[fact] = tuple(tuple(c.words(w)) for w in cues if c.words(w))
    c.figure_factors = frozenset(fact for fact, figure in raw.figures.items() if figure.factor)
    _spread_ambiguity(c)
    c.index()
    _spelling(c, raw)
    return c


def _cues(c: Concepts, raw: ConceptsFile) -> None:
    """Negation and nominal cues, and the words that never resolve an ambiguous alias."""
    c.neg_before = tuple(tuple(c.words(x)) for x in raw.negation.before)
    c.neg_anywhere = tuple(tuple(c.words(x)) for x in raw.negation.anywhere)
    c.nominal = tuple(tuple(c.words(x)) for x in raw.nominal)
    c.limiters = tuple(tuple(c.words(x)) for x in raw.limiters.phrases)
    c.limits = tuple(tuple(c.words(x)) for x in raw.limiters.after)
    c.limit_nouns = frozenset(w for x in raw.limiters.nouns for w in c.words(x))
    c.limiter_within = raw.limiters.within
    c.limit_conditions = frozenset(w for x in raw.limiters.conditions for w in c.words(x))
    c.neg_before_text = tuple(f" {' '.join(cue)} " for cue in c.neg_before if cue)
    c.neg_anywhere_text = tuple(f" {' '.join(cue)} " for cue in c.neg_anywhere if cue)
    c.ignore = frozenset(c.words(" ".join(raw.ambiguity.ignore)))


def _aliases(c: Concepts, k: Knowledge, raw: ConceptsFile) -> None:
    """Levers and claims by their ids, the packs' aliases and the concepts file's; regimes and
    facts by their names and the concepts file's words."""
    for lever in k.levers.values():
        for alias in (lever.id, lever.id.replace("_", " "), *lever.aliases, *raw.levers.get(lever.id, []),
                      *raw.kept.get(lever.id, [])):
            c.add("lever", lever.id, alias)
        c.meanings[lever.id] = set(c.words(" ".join([lever.meaning, *lever.aliases]))) - c.ignore
        c.relieves[lever.id] = frozenset(raw.resources[r] for r in lever.attacks if r in raw.resources)
    for claim in k.claims.values():
        for alias in (claim.id, claim.text, *claim.aliases, *raw.claims.get(claim.id, [])):
            c.add("claim", claim.id, alias)
        c.meanings[claim.id] = set(c.words(" ".join([claim.text, *claim.aliases]))) - c.ignore
    for value in k.vocabulary.get("regime").values:
        for alias in (value, value.replace("_", " "), *raw.regimes.get(value, [])):
            c.add("regime", value, alias)
        for alias in raw.regime_words.get(value, []):
            c.add("regime_word", value, alias)
        for alias in raw.resource_words.get(value, []):
            c.add("resource_word", value, alias)
    for name in k.vocabulary.specs:
        c.add("fact", name, name)
        c.add("fact", name, name.replace("_", " "))
    for name, aliases in raw.facts.items():
        for alias in aliases:
            c.add("fact", name, alias)


def _spelling(c: Concepts, raw: ConceptsFile) -> None:
    """Every word an alias, heading, cue or meaning uses (a typo is read as one of them, by first
    letter), less the negation cue and filler words, and the words never read as typos."""
    vocab = {w for table in c.phrases.values() for key in table if key not in c.kept for w in key}
    vocab |= {w for key in c.headings for w in key}
    cue_words = {w for cue in (*c.neg_before, *c.neg_anywhere) for w in cue}   # a typo never negates
    vocab |= cue_words | {w for cue in c.nominal for w in cue}   # 'nominaly' is 'nominal'

    vocab |= {w for cues in c.figure_words.values() for cue in cues for w in cue}
    vocab |= {w for meaning in c.meanings.values() for w in meaning}
    c.known = frozenset(vocab)
    by_letter: dict[str, list[str]] = {}
    for w in sorted(vocab - cue_words - set(c.filler)):
        by_letter.setdefault(w[0], []).append(w)
    c.known_by_letter = {k: tuple(v) for k, v in by_letter.items()}
    c.keep = frozenset(words(" ".join(raw.spelling.keep)))


def _spread_ambiguity(c: Concepts) -> None:
    """An alias found inside another concept's alias (of the same kind) names that concept too."""
    for table in c.phrases.values():
        items = list(table.items())
        for short, owners in items:
            for long, others in items:
                if len(long) > len(short) and _contains(list(long), short) and not others <= owners:
                    table[short] = owners | others
