"""Where one text says the opposite of the other: a negation or an antonym.

"Ethanol stress decreases the expression of IBP" and "Ethanol stress increases the expression
of IBP" share every word but one, and that one turns the claim around. Identical means the
same words up to order, inflection and function words, so such a pair is never identical,
however many words it shares: it is a reformulation (`relations.categorize`), the same
subject asked the other way round, with the same documents to find (in SciFact a claim and
its negation cite the same abstract).

The words are a lexicon declared here rather than read from WordNet, which would need NLTK
and its data downloaded at run time; it holds the direction words of biomedical claims
("upregulate"/"downregulate", "inhibit"/"activate", "hyper-"/"hypo-") beside general ones
("more"/"less"). Three kinds of evidence count, each on content words after stemming
(`text.stem`), so "decreases" meets "decreased":

- a negation ("not", "no", "without", "lack", and "n't", which `normalize` leaves as "doesn
  t") whose next content word the other text has un-negated: "does not reduce" against
  "reduces", "without diabetes" against "with diabetes". A negation whose word the other text
  lacks restricts the need rather than turning it ("patients without diabetes" against
  "patients"; "non-U.S. media bias" against "media bias", which the study's annotators call
  a generalization), so it counts as any other word;
- a word that is the other's with a negating prefix ("nonsmokers", "ineffective",
  "asymptomatic") or with the opposite prefix ("hypertension"/"hypotension");
- one word of an antonym pair on each side, among the words that differ ("higher"/"lower",
  "positive"/"negative"): a pair whose both sides name both ("pros and cons") turns nothing.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from itertools import product

from leakeval_core.leakage.text import content_terms, paired_terms, stem

__all__ = ["ANTONYMS", "NEGATIONS", "compared_terms", "spell_out"]

NEGATIONS = (
    "not no non never without nor neither none nothing lack lacks lacked lacking anti absence "
    "fail fails failed"
)
"""Words that negate the content word after them."""
_NEGATING_PREFIXES = ("non", "anti", "dis", "un", "in", "im", "il", "ir", "a")
_OPPOSITE_PREFIXES = (
    ("hyper", "hypo"),
    ("over", "under"),
    ("up", "down"),
    ("pre", "post"),
    ("in", "out"),
    ("intra", "extra"),
    ("endo", "exo"),
    ("hetero", "homo"),
)
_SHORTEST_STEM = 4
"""The shortest word a prefix may turn around: 'unable' is 'able' turned, 'iron' is not 'on'."""
ANTONYMS = (
    (
        "increase increased increases increasing increment rise rises rising raise raised "
        "raises elevate elevated elevates elevation boost boosted boosts augment augmented "
        "amplify amplified accelerate accelerated accelerates acceleration gain gains grow "
        "grows growth up upward upwards upregulate upregulated upregulates upregulation",
        "decrease decreased decreases decreasing reduce reduced reduces reducing reduction "
        "decline declined declines declining lower lowered lowers lowering diminish "
        "diminished diminishes drop dropped drops fall falls fell attenuate attenuated "
        "attenuates attenuation slow slowed slows slowing decelerate loss lose loses losing "
        "shrink down downward downwards downregulate downregulated downregulates downregulation",
    ),
    ("more most greater greatest", "less least fewer fewest lesser"),
    ("high higher highest upper", "low lower lowest"),
    ("large larger largest big bigger biggest", "small smaller smallest little"),
    ("positive positively", "negative negatively"),
    ("upstream", "downstream"),
    ("above over exceed exceeds", "below under"),
    (
        "activate activated activates activating activation activator activators promote "
        "promoted promotes promoting promotion stimulate stimulated stimulates stimulating "
        "stimulation induce induced induces inducing induction enhance enhanced enhances "
        "enhancing enhancement agonist agonists potentiate",
        "inhibit inhibited inhibits inhibiting inhibition inhibitor inhibitors inhibitory "
        "suppress suppressed suppresses suppressing suppression repress repressed represses "
        "repression block blocked blocks blocking antagonist antagonists antagonize",
    ),
    ("cause caused causes causing", "prevent prevented prevents preventing prevention"),
    (
        "good better best improve improved improves improving improvement beneficial benefit "
        "benefits favorable favourable",
        "bad worse worst poor poorer poorest worsen worsened worsens worsening impair "
        "impaired impairs impairment deteriorate deteriorated deterioration harmful harm "
        "harms detrimental adverse unfavorable unfavourable",
    ),
    ("present presence", "absent absence"),
    ("have has had show shows showed exhibit exhibits possess", "lack lacks lacked lacking"),
    ("success successful succeed succeeds", "failure failures unsuccessful"),
    ("before pre prior", "after post"),
    ("early earlier earliest", "late later latest"),
    ("long longer longest", "short shorter shortest"),
    ("strong stronger strongest strengthen strengthens", "weak weaker weakest weaken weakens"),
    ("old older oldest elderly", "young younger youngest"),
    ("sensitive sensitivity susceptible susceptibility", "resistant resistance"),
    ("benign", "malignant"),
    ("acute", "chronic"),
    ("maximum max maximal maximize", "minimum min minimal minimize"),
    ("hot warm warming heat", "cold cool cooling"),
    ("rich wealthy affluent", "poor poverty impoverished"),
    ("include included includes inclusion", "exclude excluded excludes exclusion"),
    ("accept accepted accepts acceptance", "reject rejected rejects rejection"),
    (
        "support supported supports supporting supporter supporters pro pros",
        "oppose opposed opposes opposing opposition opponent opponents against con cons",
    ),
    ("internal", "external"),
    ("safe", "dangerous"),
    ("same similar", "different"),
    ("true", "false"),
)
"""Pairs of word groups, each the other's opposite: a word of one group on one side and a
word of the other on the other side turn the pair around."""

_POLES = tuple(
    (frozenset(map(stem, one.split())), frozenset(map(stem, other.split())))
    for one, other in ANTONYMS
)
_NEGATED = frozenset(map(stem, NEGATIONS.split()))
_CONTRACTED = re.compile(
    r"\b(do|does|did|is|are|was|were|has|have|had|could|should|would|must|need|ca|wo|ai)n ?t\b"
)
_AUXILIARY = {"ca": "can", "wo": "will", "ai": "is"}


def spell_out(norm: str) -> str:
    """A normalised text with its negations spelled out: "doesn t" (what `normalize` leaves
    of "doesn't"), "doesnt" and "cannot" become "does not", "can not"."""
    norm = re.sub(r"\bcannot\b", "can not", norm)
    return _CONTRACTED.sub(lambda m: f"{_AUXILIARY.get(m[1], m[1])} not", norm)


def compared_terms(
    test_norm: str, train_norm: str
) -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
    """The content terms of two normalised texts (`text.paired_terms`, negations spelled
    out), and those by which one says the opposite of the other: the negations that turn a
    word the other text keeps, and the words of each side that a prefix or an antonym sets
    against the other's. The last is empty where neither turns the other around."""
    test_norm, train_norm = spell_out(test_norm), spell_out(train_norm)
    test_terms, train_terms = paired_terms(test_norm, train_norm)
    test_negations, train_negations = _negations(test_norm), _negations(train_norm)
    turning = _turning(test_negations, train_terms, train_negations) | _turning(
        train_negations, test_terms, test_negations
    )
    test_only, train_only = test_terms - train_terms, train_terms - test_terms
    for one, other in _POLES:
        if (test_only & one and train_only & other) or (test_only & other and train_only & one):
            turning |= (test_only | train_only) & (one | other)
    for a, b in product(_words(test_norm, test_only), _words(train_norm, train_only)):
        if _prefixed(a, b) or _prefixed(b, a):
            turning |= {stem(a), stem(b)}
    return test_terms, train_terms, frozenset(turning)


def _negations(norm: str) -> list[tuple[str, str]]:
    """(negation, the next content term after it) for each negation of a normalised text."""
    terms = [next(iter(t), "") for t in map(content_terms, norm.split())]
    out = []
    for i, term in enumerate(terms):
        if term in _NEGATED:
            following = next((t for t in terms[i + 1 :] if t and t not in _NEGATED), "")
            if following:
                out.append((term, following))
    return out


def _turning(
    negations: list[tuple[str, str]],
    other_terms: frozenset[str],
    other_negations: list[tuple[str, str]],
) -> set[str]:
    """The negations of one text whose word the other text has, un-negated."""
    negated_there = {word for _, word in other_negations}
    return {n for n, word in negations if word in other_terms and word not in negated_there}


def _words(norm: str, terms: Iterable[str]) -> list[str]:
    """The words of a normalised text whose stems are among `terms`."""
    wanted = frozenset(terms)
    return [w for w in norm.split() if stem(w) in wanted]


def _prefixed(word: str, other: str) -> bool:
    """`word` is `other` with a negating prefix, or `other`'s opposite prefix put for its own."""
    for prefix in _NEGATING_PREFIXES:
        rest = word[len(prefix) :]
        if word.startswith(prefix) and len(rest) >= _SHORTEST_STEM and stem(rest) == stem(other):
            return True
    for one, two in (*_OPPOSITE_PREFIXES, *((b, a) for a, b in _OPPOSITE_PREFIXES)):
        rest = word[len(one) :]
        if (
            word.startswith(one)
            and other.startswith(two)
            and len(rest) >= _SHORTEST_STEM
            and stem(rest) == stem(other[len(two) :])
        ):
            return True
    return False
