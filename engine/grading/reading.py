"""What an answer says, read against the key: generic wording resolved to the levers the key
has a verdict on, deferred steps placed where the key puts them, a sentence naming the key's
whole menu credited as its fixes. Scoring (score.py) then weighs what this finds."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from regime.engine.grading.answer import Answer, Mention
from regime.engine.grading.concepts import Concepts
from regime.engine.grading.key import Key
from regime.engine.grading.keywords import keyword_list
from regime.engine.grading.offers import offered_if, waits_elsewhere
from regime.engine.grading.penalties import words as _name
from regime.engine.grading.recommending import ASIDE, names_only
from regime.engine.grading.scopes import cued


@dataclass
class Read:
    """What the answer says, with ambiguous wording resolved against the key: fixes in order,
    rejections, endorsed claims, and a line for every mention that could not be credited."""

    fixes: list[str] = field(default_factory=list)
    rejects: list[str] = field(default_factory=list)
    lines: dict[str, list[str]] = field(default_factory=dict)
    reasons: dict[str, str] = field(default_factory=dict)    # concept -> right | wrong | none
    unsure: list[tuple[int, str]] = field(default_factory=list)
    hedged: set[str] = field(default_factory=set)   # key fixes given only with a hedge
    leans: list[str] = field(default_factory=list)   # levers the key rejects, offered with a hedge


def verdict(key: Key, concept: str) -> str | None:
    if any(i.id == concept for i in key.fixes):
        return "fix"
    if any(i.id == concept for i in key.rejects):
        return "reject"
    return None


def _resolve(m: Mention, key: Key, part: str, read: Read) -> tuple[str, ...]:
    """The levers a mention credits. Generic wording ("quantization", "batching") is credited
    when every reading the key has a verdict on gets the same verdict; only readings that
    differ in the key make it ambiguous, and then the line says why."""
    if len(m.concepts) == 1:
        return m.concepts
    judged = {c: verdict(key, c) for c in m.concepts}
    with_verdict = [c for c, v in judged.items() if v]
    if not with_verdict:
        return ()
    if len({judged[c] for c in with_verdict}) == 1:
        return tuple(with_verdict)
    said = " or ".join(f"{_name(c)} (which the key {'recommends' if judged[c] == 'fix' else 'rejects'})"
                       for c in with_verdict)
    read.lines.setdefault(part, []).append(
        f"line {m.line}: '{m.written}' could mean {said}; the two readings get opposite verdicts here, "
        "so it is not credited: name the lever you mean")
    return ()


def _standing_for(m: Mention, key: Key, refusals: Mapping[str, tuple[str, ...]],
                  want: tuple[str, ...] = ("reject",)) -> Mention:
    """A refused lever the key has no verdict on, read as refusing the levers the key rejects that
    it stands for (concepts.yaml `refusals`): a kernel table's row that leaves an attention kernel
    alone refuses more attention fusion where the key rejects that (sealed131 b.s1339). A
    recommended one likewise recommends the rejected levers whose argument it makes (`kin`)."""
    if any(verdict(key, c) for c in m.concepts):
        return m
    more = tuple(r for c in m.concepts for r in refusals.get(c, ()) if verdict(key, r) in want)
    return replace(m, concepts=(*m.concepts, *more)) if more else m


def stand_in(a: Answer, stands_for: Mapping[str, tuple[str, ...]], key: Key) -> None:
    """A lever the key has no verdict on, named for one it has (concepts.yaml `stands_for`): "a
    tiled, FA2-style fused attention kernel so the scores never hit HBM" is the FlashAttention the
    key recommends (sealed156 c.s1583), wherever the answer puts it; where the key judges the
    lever itself, it is read as itself."""
    for group in (a.fixes, a.rejects, a.hedged, a.deferred, a.discussed):
        group[:] = [_standing_for(m, key, stands_for, ("fix", "reject")) for m in group]


def read_against(a: Answer, key: Key, menu_share: float, concepts: Concepts | None = None) -> Read:
    refusals, kin = (concepts.refusals, concepts.kin) if concepts is not None else ({}, {})
    stand_in(a, concepts.stands_for if concepts is not None else {}, key)   # (the reasons read them too)
    read = Read()
    argued: list[str] = []   # rejected levers whose argument a kin fix makes
    done_by = concepts.done_by if concepts is not None else {}
    for n, m in enumerate(a.fixes):   # int8 "rather than int4 - halve the bytes" makes int4's argument
        if _means(m, a.fixes[:n], done_by, key):   # (`kin`)
            continue
        stands = _standing_for(m, key, kin)
        argued += [c for c in stands.concepts if c not in m.concepts]
        for c in _resolve(stands, key, "fixes", read):
            if c not in read.fixes:
                read.fixes.append(c)
    for m in a.rejects:
        for c in _resolve(_standing_for(m, key, refusals), key, "rejections", read):
            if c not in read.rejects:
                read.rejects.append(c)
    for m in a.hedged:   # "torch.compile might also reduce kernel count": part of a key fix
        # (before the deferrals: a later "Once FlashAttention is in, ..." upgrades no hedge)
        for c in _resolve(m, key, "fixes", read):
            if verdict(key, c) == "fix" and c not in read.fixes and c not in read.rejects:
                read.fixes.append(c)
                read.hedged.add(c)
            elif verdict(key, c) == "reject" and not any(i.for_now for i in key.rejects if i.id == c):
                read.leans.append(c)   # "fusing might help with that" (sealed118 a.s1210); not a
                #                        lever refused only for now: "maybe batching later" waits
    _place_deferred(a, key, read, concepts)
    proposals = [p for p in key.verdicts if p not in key.claims]
    if a.says_no and len(proposals) == 1 and proposals[0] not in read.fixes + read.rejects:
        read.rejects.append(proposals[0])   # "the answer is no": to the one thing the case asks about
    lists = [m for group in a.listed   # a keyword list with a regime among its terms is no menu
             if keyword_list(concepts, group[0].reason)
             or not _menu(_members(group, concepts), key, read, menu_share) for m in group]
    _traps([*a.stuffed, *lists], key, read)
    for c, given in a.verdicts.items():
        target = read.fixes if given == "fix" else read.rejects
        if c not in target:
            target.append(c)
    # a refusal whose argument the answer makes through a kin fix does not stand ("int4: too
    #   aggressive for accuracy" beside "int8 instead of int4 - still halves bytes")
    read.rejects = [c for c in read.rejects if c not in argued]
    # refused outright: a mention elsewhere ("int4 shrinks bytes") is commentary, not a fix
    read.fixes = [c for c in read.fixes if c not in read.rejects]
    read.leans = [c for c in read.leans if c not in read.rejects + read.fixes]
    return read


def _means(m: Mention, before: list[Mention], done_by: Mapping[str, tuple[str, ...]], key: Key) -> bool:
    """A fix named, in the same item, after a lever that carries it out (concepts.yaml `done_by`)
    is what that lever does, not a step of its own: "torch.compile, which fuses norm/pointwise
    chains for you" (sealed174 b.s1763, instructor 100) is compile, not hand fusion put first.
    Only a key fix is so read: a trap the lever carries out is still recommended ("torch.compile
    to fuse the small elementwise kernels" where the key rejects that fusion, sealed108 a.s1107)."""
    earlier = {c for b in before if b.line == m.line for c in b.concepts}
    return any(verdict(key, c) == "fix" for c in m.concepts) \
        and not any(verdict(key, c) == "reject" for c in m.concepts) \
        and any(set(done_by.get(c, ())) & earlier for c in m.concepts)


def _place_deferred(a: Answer, key: Key, read: Read, concepts: Concepts | None = None) -> None:
    """Deferred and conditional mentions, where the key puts them: a later step of its fixes
    ("then, not before"), or the rejection of a lever it refuses only for now (`for_now:`)."""
    for m in a.deferred:   # "then, not before": a later step of the key's, or one it rejects for now
        for c in _resolve(m, key, "fixes", read):
            said = verdict(key, c)
            for_now = any(i.for_now for i in key.rejects if i.id == c)
            offered = said == "reject" and not m.later and concepts is not None and (
                waits_elsewhere(concepts, m.reason, c, {i.id for i in key.fixes}) if for_now
                else offered_if(concepts, m.reason, c))
            if said == "reject" and (m.fallback or offered) and c not in read.rejects:
                read.leans.append(c)   # "if graphs don't close the gap, raise the batch": left open
                continue
            earlier = any(c in r.concepts and r.line <= m.line for r in a.rejects)
            if said == "fix" and c in read.rejects and earlier:   # "instead of two weeks of hand-written
                read.rejects.remove(c)   # kernels", later "hand-fused kernels only if a gap remains":
                #                          the later word stands (sealed25 b.s271)
            if said == "reject" and m.later and not any(i.for_now for i in key.rejects if i.id == c):
                said = None   # refused outright, not for now: "once FlashAttention is in, int8 for ITL"
                #               rejects nothing (sealed23 c.s257; the blind grades take the rejection
                #               and 3-5 more, not a trap's 10: sealed18 c.s209, sealed19 c.s216)
            if said == "reject" and a.regime is None and a.regimes_named:
                said = None   # "If it's really bandwidth-bound then batching or int8" after "Hard to say -
                #               could be bandwidth-bound, could be overhead": regimes weighed, none
                #               committed to, so an option left open, not the key's "then, not before"
                #               (sealed47 e.s495, instructor 16)
            target = read.fixes if said == "fix" else read.rejects if said == "reject" else None
            if target is not None and c not in read.fixes and c not in read.rejects:
                if said == "fix" and m.later and not _after_earlier_step(c, key, read, _sure(m, concepts)):
                    read.hedged.add(c)   # "maybe FlashAttention later" of the key's first step:
                    #                      put off, not placed (sealed109 c.s1114, sealed114 c.s1164)
                target.append(c)
                if said == "reject":   # "not yet; once ..., int8 would be worth it": a rejection?
                    read.unsure.append((m.line, m.written))


def _sure(m: Mention, concepts: Concepts | None) -> bool:
    """A deferral said without a hedge: "then do CUDA graphs", not "Maybe FlashAttention later"."""
    if concepts is None or concepts.context is None:
        return False
    return not cued(concepts.words(m.reason), concepts.context.forward.get("possible", ()))


def _after_earlier_step(c: str, key: Key, read: Read, sure: bool = False) -> bool:
    """Whether a deferred key fix follows a step the key puts before it that the answer takes
    now, or, said without a hedge, one the key rejects: "then, not before" needs a "before". A step
    put off behind nothing, or behind a later step of the key's, is a hedge (sealed108 b.s1105
    "afterwards try torch.compile")."""
    rank = {i.id: i.rank for i in key.fixes}
    return any(rank.get(f, rank[c]) < rank[c] or sure
               for f in read.fixes if f not in read.hedged)   # "Quantize to int8 now. Graph capture
    #   can wait until after the int8 rollout; then do CUDA graphs" (sealed168 e.s1705, sealed176
    #   e.s1787), "Second fix: continuous batching once int8 is in" (sealed197 a.s1997): placed,
    #   unhedged, after a step the key rejects or ranks later: the wrong order (the blind grades
    #   take 2 for it), not a hedge as "Maybe FlashAttention later" is (sealed109 c.s1114)


def _traps(listed: list[Mention], key: Key, read: Read) -> None:
    """A keyword list commits to none of its levers, but a trap it names is still offered. The
    blind grades charge such a list once, 5-10 points ("the two traps recommended (by listing
    them)", sealed19 a.s217; sealed14 b.s169): its first trap is charged, as recommended."""
    for m in listed:
        for c in _resolve(m, key, "fixes", read):
            if verdict(key, c) == "reject" and c not in read.rejects:
                read.fixes.append(c)
                return


def _members(group: list[Mention], concepts: Concepts | None) -> list[Mention]:
    """The list's own items: not a lever named only in an item's aside in brackets to set it
    off ('fp8 GEMMs (these raise the compute ceiling, a different mechanism from int4 weight-only),
    better GEMM tiling, fused attention', sealed166 d.s1681, instructor 100, graded 82.4: the key's
    menu, not a keyword list naming the int4 it rejects)."""
    if concepts is None or not group:
        return group
    said = ASIDE.sub(lambda x: x[0] if names_only(concepts, x[0][1:-1]) else " ", group[0].reason)
    named = {m.concepts for m in concepts.find("lever", said)}   # not "(speculative decoding, or a
    #   smaller model)": an aside of names alone is more of the list (sealed149 d.s1511)
    return [m for m in group if m.concepts in named] or group


def _menu(group: list[Mention], key: Key, read: Read, share: float) -> bool:
    """A sentence that recommends more levers than one commits to ('attack compute: fp8 GEMMs,
    fused attention, better tiling, speculative decoding or a smaller model'): the key's own
    menu when it names none the key rejects and is mostly (`share`) the key's fixes, so they
    count, in the order written (True); otherwise it is a keyword list and commits to nothing."""
    levers = [c for m in group for c in _resolve(m, key, "fixes", read)]
    verdicts = [verdict(key, c) for c in levers]
    fixes = verdicts.count("fix")
    if "reject" in verdicts or fixes < 2 or fixes < share * len(group):
        return False
    read.fixes += [c for c, v in zip(levers, verdicts, strict=True)
                   if v == "fix" and c not in read.fixes and c not in read.rejects]
    return True
