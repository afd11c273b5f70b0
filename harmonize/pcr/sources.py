"""Readers of the WSC-style sets, each to `Question` records.

Every reader takes ``(path, problems, options)`` and returns the questions; a record that cannot become a
question is passed to ``problems`` (strict: an error naming file, line or record and reason; lenient: counted and
skipped). What a source leaves out on purpose (GAP's "neither" rows, SuperGLUE pairs without a partner) is
counted in the report either way. `SOURCES` is the registry ``harmonize pcr convert --from NAME`` uses.
"""

from __future__ import annotations

import csv
import json
import random
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from lxml import etree

from harmonize.errors import FormatError, Problems
from harmonize.pcr.questions import Question, blank_offset, read_pcr4all_file

Options = dict[str, str]


def _clean(text: str) -> str:
    return " ".join(text.split())


def _find(sentence: str, option: str) -> list[int] | None:
    """[start, end) of the option's first whole-word occurrence in the sentence (case-insensitive)."""
    if not option:
        return None
    match = re.search(rf"(?<!\w){re.escape(option)}(?!\w)", sentence, flags=re.IGNORECASE)
    return [match.start(), match.end()] if match else None


def make_question(sentence: str, option1: str, option2: str, answer: int | None, pronoun: str, source: str,
                  **extra: object) -> Question:
    """A question with the offsets of the blank and of the options where they are written in the sentence."""
    question = Question(sentence, option1, option2, answer, pronoun, source, **extra)  # type: ignore[arg-type]
    offsets = {"pronoun": blank_offset(sentence), "option1": _find(sentence, option1),
               "option2": _find(sentence, option2)}
    question.offsets = {name: span for name, span in offsets.items() if span is not None}
    return question


def _blank(text: str, start: int, end: int) -> str:
    return f"{text[:start]}_{text[end:]}"


def _pick(candidates: list[str], correct: str) -> int | None:
    """Index of the correct candidate among the candidates (compared without case and outer spaces)."""
    wanted = _clean(correct).lower()
    found = [index for index, candidate in enumerate(candidates) if _clean(candidate).lower() == wanted]
    return found[0] if len(found) == 1 else None


def read_winogrande(path: Path, problems: Problems, options: Options) -> list[Question]:
    """WinoGrande JSONL; answers in the file, or one per line in ``labels`` (default ``<name>-labels.lst``)."""
    labels_path = Path(options.get("labels") or path.with_name(f"{path.stem}-labels.lst"))
    labels = labels_path.read_text(encoding="utf-8").split() if labels_path.exists() else None
    lines = [(number, line) for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             if line.strip()]
    if labels is not None and len(labels) != len(lines):
        raise FormatError(str(labels_path), None, f"{len(labels)} labels for {len(lines)} questions of {path}")
    questions = []
    for index, (number, line) in enumerate(lines):
        try:
            record = json.loads(line)
            sentence, option1, option2 = record["sentence"], record["option1"], record["option2"]
        except (ValueError, KeyError, TypeError) as error:
            problems(number, f"not a WinoGrande question: {error!r}", line[:80])
            continue
        answer = str(record.get("answer", "")).strip()
        if labels is not None:
            if answer and answer != labels[index]:
                problems(number, f"answer {answer} disagrees with {labels_path.name} line {index + 1}: {labels[index]}")
                continue
            answer = labels[index]
        if answer not in ("1", "2", ""):
            problems(number, f"answer {answer!r} is not 1 or 2")
            continue
        if sentence.count("_") != 1:
            problems(number, f"{sentence.count('_')} blanks '_' in the sentence, not 1")
            continue
        questions.append(make_question(sentence, option1, option2, int(answer) if answer else None, "",
                                       "WinoGrande", doc_id=str(record.get("qID", ""))))
    return questions


def _wsc_question(txt1: str, pronoun: str, txt2: str, answers: list[str], correct: str, where: int,
                  problems: Problems, source: str = "WSC") -> list[Question]:
    sentence = _clean(f"{_clean(txt1)} _ {_clean(txt2)}")
    letter = correct.strip().rstrip(".").strip().upper()
    if len(answers) != 2 or letter not in ("A", "B"):
        problems(where, f"expected two answers and A or B, found {len(answers)} answers and {correct.strip()!r}")
        return []
    return [make_question(sentence, _clean(answers[0]), _clean(answers[1]), 1 if letter == "A" else 2,
                          _clean(pronoun), source, doc_id=str(where))]


# WSC273, the set most results on the WSC are reported on, is the collection's first 273 schemas (WSC285 adds 12).
WSC273 = 273


def read_wsc_xml(path: Path, problems: Problems, options: Options) -> list[Question]:
    """E. Davis' ``WSCollection.xml`` (ISO-8859-1, fields padded with spaces and newlines): one per schema, all 285
    (WSC285), or the first 273 (WSC273) with ``subset=wsc273``."""
    subset = options.get("subset", "wsc285")
    if subset not in ("wsc285", "wsc273"):
        raise FormatError(str(path), None, f"subset must be wsc285 or wsc273, not {subset!r}")
    try:
        root = etree.parse(str(path), etree.XMLParser(resolve_entities=False, no_network=True)).getroot()
    except etree.XMLSyntaxError as error:
        raise FormatError(str(path), error.lineno, f"not XML: {error.msg}") from None
    schemas = list(root.iter("schema"))
    if subset == "wsc273":
        if len(schemas) < WSC273:
            raise FormatError(str(path), None, f"{len(schemas)} schemas, fewer than WSC273's {WSC273}")
        problems.report.add("WSC285 schemas after WSC273's first 273 left out (-I subset=wsc273)", str(path),
                            len(schemas) - WSC273)
        schemas = schemas[:WSC273]
    questions = []
    for schema in schemas:
        text = schema.find("text")
        answers = [answer.text or "" for answer in schema.iterfind("answers/answer")]
        if text is None or text.find("txt1") is None or text.find("pron") is None:
            problems(schema.sourceline, "schema without text/txt1/pron")
            continue
        questions += _wsc_question(text.findtext("txt1") or "", text.findtext("pron") or "",
                                   text.findtext("txt2") or "", answers, schema.findtext("correctAnswer") or "",
                                   schema.sourceline, problems)
    return questions


def read_winowhy(path: Path, problems: Problems, options: Options) -> list[Question]:
    """WinoWhy JSON: WSC273's questions with reasons (the reasons are not questions: counted, not kept)."""
    questions = []
    for number, record in enumerate(_json_list(path), 1):
        try:
            text = record["text"]
            questions += _wsc_question(text["txt1"], text["pron"], text["txt2"], record["answers"],
                                       record["correctAnswer"], number, problems)
        except (KeyError, TypeError) as error:
            problems(None, f"not a WinoWhy record: {error!r}", f"record {number}")
            continue
        problems.report.add("WinoWhy reasons not kept (not questions)", str(number), len(record.get("reasons", [])))
    return questions


def _json_list(path: Path) -> list:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as error:
        raise FormatError(str(path), getattr(error, "lineno", None), f"not JSON: {error}") from None
    if not isinstance(data, list):
        raise FormatError(str(path), None, "expected a JSON list of records")
    return data


def read_superglue_wsc(path: Path, problems: Problems, options: Options) -> list[Question]:
    """SuperGLUE WSC: candidate/pronoun pairs (word indices into the whitespace tokens), grouped by pronoun of one
    text. A pronoun's one right candidate makes a question with each wrong one (as ``wsc-txt`` pairs a schema's
    candidates), in the order the pairs come; unlabelled pairs (test) make a question where there are exactly two.
    What cannot make a question (one candidate, no right one, a second right one) is reported."""
    groups: dict[tuple[str, int], list[tuple[int, dict]]] = {}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
            target = record["target"]
            key = (record["text"], int(target["span2_index"]))
            int(target["span1_index"]), target["span1_text"], target["span2_text"]  # KeyError if one is missing
        except (ValueError, KeyError, TypeError) as error:
            problems(number, f"not a SuperGLUE WSC pair: {error!r}", line[:80])
            continue
        groups.setdefault(key, []).append((number, record))
    questions = []
    for (text, pronoun_index), pairs in groups.items():
        labels = [record.get("label") for _, record in pairs]
        labelled = all(label is not None for label in labels)
        if labelled:
            right = [index for index, label in enumerate(labels) if label is True]
            wrong = [index for index, label in enumerate(labels) if label is False]
            if not right or not wrong:
                reason = "pronoun with one candidate" if len(pairs) == 1 else "no right and wrong candidate"
                problems.report.add(f"SuperGLUE WSC pairs without a binary question: {reason}",
                                    f"line {pairs[0][0]}", len(pairs))
                continue
            if len(right) > 1:
                problems.report.add("SuperGLUE WSC: another span of the right candidate not used (the first is)",
                                    f"line {pairs[right[1]][0]}", len(right) - 1)
            chosen = [sorted((right[0], other)) for other in wrong]
        elif len(pairs) == 2:
            chosen = [[0, 1]]
        else:
            problems.report.add("SuperGLUE WSC pairs without a binary question: unlabelled, not two candidates",
                                f"line {pairs[0][0]}", len(pairs))
            continue
        tokens = text.split(" ")
        pronoun = pairs[0][1]["target"]["span2_text"]
        if pronoun_index >= len(tokens) or pronoun.split()[0].lower() not in tokens[pronoun_index].lower():
            problems(pairs[0][0], f"span2_index {pronoun_index} is not {pronoun!r} in the text")
            continue
        start = sum(len(token) + 1 for token in tokens[:pronoun_index])
        start += tokens[pronoun_index].lower().find(pronoun.split()[0].lower())
        sentence = _blank(text, start, start + len(pronoun))
        for first, second in chosen:
            one, two = pairs[first][1], pairs[second][1]
            answer = (1 if one["label"] else 2) if labelled else None
            doc_id = str(one.get("idx", "")) if len(chosen) == 1 else f"{one.get('idx', '')}+{two.get('idx', '')}"
            questions.append(make_question(sentence, one["target"]["span1_text"], two["target"]["span1_text"],
                                           answer, pronoun, "WSC", doc_id=doc_id))
    return questions


def read_knowref(path: Path, problems: Problems, options: Options) -> list[Question]:
    """KnowRef JSON: the pronoun in brackets; the label is ``correct_candidate`` (``correct_candidate_idx``
    disagrees with it in about a quarter of the items: counted)."""
    questions = []
    for number, record in enumerate(_json_list(path), 1):
        try:
            text = record["sentence_with_pronoun"]
            candidates = [" ".join(record["candidate0"]), " ".join(record["candidate1"])]
            correct = " ".join(record["correct_candidate"])
        except (KeyError, TypeError) as error:
            problems(None, f"not a KnowRef record: {error!r}", f"record {number}")
            continue
        brackets = list(re.finditer(r"\[([^\]]+)\]", text))
        if len(brackets) != 1:
            problems(None, f"{len(brackets)} bracketed pronouns, not 1", f"record {number}: {text[:80]}")
            continue
        answer = _pick(candidates, correct)
        if answer is None:
            problems(None, "correct_candidate is neither candidate", f"record {number}: {correct!r}")
            continue
        if record.get("correct_candidate_idx") not in (None, answer):
            problems.report.add("KnowRef correct_candidate_idx disagrees with correct_candidate (label kept)",
                                f"record {number}")
        pronoun = brackets[0]
        sentence = _clean(_blank(text, pronoun.start(), pronoun.end()))
        questions.append(make_question(sentence, candidates[0], candidates[1], answer + 1, pronoun.group(1),
                                       "KnowRef", doc_id=str(record.get("oiginal_id", number))))
    return questions


def read_gap(path: Path, problems: Problems, options: Options) -> list[Question]:
    """GAP TSV (character offsets): A or B; "neither" rows are left out and counted, or kept as answer 3 with
    ``gap_neither=keep``."""
    keep_neither = options.get("gap_neither", "drop") == "keep"
    if options.get("gap_neither", "drop") not in ("drop", "keep"):
        raise FormatError(str(path), None, "gap_neither must be drop or keep")
    questions = []
    with path.open(encoding="utf-8", newline="") as handle:
        for number, row in enumerate(csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE), 2):
            try:
                text, pronoun, at = row["Text"], row["Pronoun"], int(row["Pronoun-offset"])
                a, b = row["A"], row["B"]
                a_at, b_at = int(row["A-offset"]), int(row["B-offset"])
                a_true, b_true = row["A-coref"].upper() == "TRUE", row["B-coref"].upper() == "TRUE"
            except (KeyError, ValueError, TypeError, AttributeError) as error:
                problems(number, f"not a GAP row: {error!r}")
                continue
            if text[at : at + len(pronoun)] != pronoun:
                problems(number, f"Pronoun-offset {at} does not point to {pronoun!r}")
                continue
            if a_true and b_true:
                problems(number, "both A and B marked coreferent")
                continue
            if not (a_true or b_true) and not keep_neither:
                problems.report.add("GAP rows with neither candidate left out (-I gap_neither=keep keeps them)",
                                    row["ID"])
                continue
            sentence = _blank(text, at, at + len(pronoun))
            question = Question(sentence, a, b, 1 if a_true else 2 if b_true else 3, pronoun, "GAP", doc_id=row["ID"])
            shift = 1 - len(pronoun)
            question.offsets = {"pronoun": [at, at + 1]}
            for name, option, option_at in (("option1", a, a_at), ("option2", b, b_at)):
                start = option_at + (shift if option_at > at else 0)
                if sentence[start : start + len(option)] == option:
                    question.offsets[name] = [start, start + len(option)]
            questions.append(question)
    return questions


GENDERS = {"male": ("he", "his", "him"), "female": ("she", "her", "her"), "neutral": ("they", "their", "them")}
_PRONOUN_SLOTS = ("$NOM_PRONOUN", "$POSS_PRONOUN", "$ACC_PRONOUN")


def read_winogender(path: Path, problems: Problems, options: Options) -> list[Question]:
    """WinoGender ``templates.tsv``: each template expanded for the named participant and "someone", and for a
    male and a female pronoun (480 questions, PCR4ALL's gender test); ``-I neutral=keep`` adds the neutral "they"
    (720). The pronouns of one sentence share ``group``."""
    neutral = options.get("neutral", "drop")
    if neutral not in ("drop", "keep"):
        raise FormatError(str(path), None, f"neutral must be drop or keep, not {neutral!r}")
    genders = {k: v for k, v in GENDERS.items() if neutral == "keep" or k != "neutral"}
    questions = []
    with path.open(encoding="utf-8", newline="") as handle:
        for number, row in enumerate(csv.reader(handle, delimiter="\t"), 1):
            if number == 1 and row and row[0].startswith("occupation"):
                continue
            if len(row) != 4 or row[2] not in ("0", "1"):
                problems(number, "expected occupation, participant, answer 0/1, sentence")
                continue
            occupation, participant, answer, template = row
            slots = [slot for slot in _PRONOUN_SLOTS if slot in template]
            if len(slots) != 1:
                problems(number, f"{len(slots)} pronoun slots in the template, not 1")
                continue
            for other in (participant, "someone"):
                text = template.replace("$OCCUPATION", occupation)
                if other == "someone":
                    text = re.sub(r"\b(?:[Tt]he|an?) \$PARTICIPANT", "someone", text)
                text = text.replace("$PARTICIPANT", other)
                text = text[0].upper() + text[1:]
                group = f"{occupation}.{other}.{answer}"
                for variant, forms in genders.items():
                    pronoun = forms[_PRONOUN_SLOTS.index(slots[0])]
                    sentence = text.replace(slots[0], "_")
                    question = make_question(sentence, occupation, other, int(answer) + 1, pronoun, "WinoGender",
                                             doc_id=f"{group}.{variant}", group=group, variant=variant)
                    questions.append(question)
    return questions


def read_wsc_txt(path: Path, problems: Problems, options: Options) -> list[Question]:
    """The 4-line sets (WSC273, PDP, DPR, WinoGender, WinoBias as Kocijan et al. ship them): sentence (pronoun
    or ``[MASK]``), pronoun, candidates separated by commas, the right one; a blank line. More than two
    candidates: the right one paired with each wrong one. Where the file always lists the right candidate first,
    the options are ordered by a coin seeded with ``seed`` (default 0)."""
    blocks: list[tuple[int, list[str]]] = []
    lines = path.read_text(encoding="utf-8").split("\n")
    at = 0
    while at < len(lines):
        if not lines[at].strip():
            at += 1
            continue
        blocks.append((at + 1, lines[at : at + 4]))
        at += 4
    source = _wsc_txt_source(path.stem)
    items = []
    for number, block in blocks:
        if len(block) < 4 or not all(line.strip() for line in block):
            problems(number, "an item is four non-empty lines: sentence, pronoun, candidates, answer")
            continue
        text, pronoun, candidates_line, correct = (line.strip() for line in block)
        candidates = [_clean(c) for c in candidates_line.split(",")]
        right = _pick(candidates, correct)
        if right is None:
            problems(number, f"answer {correct!r} is not one of the candidates {candidates}")
            continue
        if "[MASK]" in text:
            start = text.index("[MASK]")
            sentence, pronoun = _clean(_blank(text, start, start + len("[MASK]"))), ""
        else:
            found = list(re.finditer(rf"(?<!\w){re.escape(pronoun)}(?!\w)", text))
            if not found:
                problems(number, f"pronoun {pronoun!r} not in the sentence")
                continue
            if len(found) > 1:
                problems.report.add("4-line items whose pronoun occurs more than once (the first taken)", str(number))
            sentence = _clean(_blank(text, found[0].start(), found[0].end()))
        items.append((number, sentence, pronoun, candidates, right))
    always_first = bool(items) and all(right == 0 for *_, right in items)
    coin = random.Random(int(options.get("seed", "0")))
    if always_first:
        problems.report.add("options ordered by a seeded coin (the file always lists the right candidate first)",
                            path.name, len(items))
    questions = []
    for number, sentence, pronoun, candidates, right in items:
        if len(candidates) > 2:
            problems.report.add("items with more than two candidates (the right one paired with each wrong one)",
                                str(number))
        for wrong in (index for index in range(len(candidates)) if index != right):
            pair = [candidates[i] for i in sorted((right, wrong))]  # the source's order
            if always_first and coin.random() < 0.5:
                pair.reverse()
            questions.append(make_question(sentence, pair[0], pair[1], pair.index(candidates[right]) + 1, pronoun,
                                           source, doc_id=f"{path.stem}:{number}"))
    return questions


def _wsc_txt_source(stem: str) -> str:
    lowered = stem.lower()
    for prefix, source in (("wsc", "WSC"), ("pdp", "PDP"), ("dpr", "DPR"), ("winogender", "WinoGender"),
                           ("winobias", "WinoBias"), ("pro_stereotyped", "WinoBias"), ("anti_stereotyped", "WinoBias")):
        if lowered.startswith(prefix):
            return source
    return stem


_BRACKET = re.compile(r"\[([^\]]+)\]")


def read_winobias(path: Path, problems: Problems, options: Options) -> list[Question]:
    """WinoBias brackets: ``[the X]`` and ``[pronoun]`` corefer; the wrong option is the other occupation, the
    first "the/a NOUN" phrase outside the brackets. ``(...)`` pairs have no second candidate: counted."""
    questions = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        text = line.strip()
        if not text:
            continue
        text = re.sub(r"^\d+\s+", "", text)  # the numbered files: "1 [The developer] argued ..."
        brackets = list(_BRACKET.finditer(text))
        if len(brackets) != 2:
            problems(number, f"{len(brackets)} bracketed phrases, not 2 (antecedent and pronoun)", text[:80])
            continue
        if "(" in text:
            problems.report.add("WinoBias (...) pairs left out (no second candidate)", str(number))
        plain = re.sub(r"[\[\]()]", "", text)
        right, pronoun = brackets[0].group(1), brackets[1].group(1)
        shift = 2 * text[: brackets[1].start()].count("[") + len(re.findall(r"[()]", text[: brackets[1].start()]))
        start = brackets[1].start() - shift
        outside = _BRACKET.sub(lambda m: " " * len(m.group(0)), text)
        others = [m.group(0) for m in re.finditer(r"\b[Tt]he [a-z]+(?: [a-z]+)?(?= (?:[a-z]+ed|and|with|to|for|"
                                                  r"about|because|that|but|as)\b|[ .,])", outside)
                  if m.group(0).lower() != right.lower()]
        if not others:
            problems(number, "no second candidate (a 'the NOUN' phrase outside the brackets)", text[:80])
            continue
        wrong = re.sub(r" (?:[a-z]+ed|and|with|to|for|about|because|that|but|as)$", "", others[0])
        sentence = _blank(plain, start, start + len(pronoun))
        questions.append(make_question(sentence, right, wrong, 1, pronoun, "WinoBias", doc_id=f"{path.name}:{number}"))
    return questions


@dataclass(frozen=True)
class Source:
    name: str
    read: Callable[[Path, Problems, Options], list[Question]]
    summary: str


SOURCES = {source.name: source for source in (
    Source("pcr4all", lambda path, problems, options: read_pcr4all_file(path, problems),
           "PCR4ALL's file: {train_data, dev_data, test_data, gender_test} (parts and perspectives kept)"),
    Source("winogrande", read_winogrande, "WinoGrande JSONL (-I labels=PATH, default <name>-labels.lst)"),
    Source("wsc-xml", read_wsc_xml, "E. Davis' WSCollection.xml (WSC285; -I subset=wsc273 for the first 273)"),
    Source("winowhy", read_winowhy, "WinoWhy JSON (WSC273 with reasons)"),
    Source("superglue-wsc", read_superglue_wsc, "SuperGLUE WSC JSONL (pairs grouped into questions)"),
    Source("knowref", read_knowref, "KnowRef JSON (label: correct_candidate)"),
    Source("gap", read_gap, "GAP TSV (-I gap_neither=drop|keep)"),
    Source("winogender", read_winogender, "WinoGender templates.tsv (480: he/she, as PCR4ALL; -I neutral=keep: "
                                          "720 with they; variants linked)"),
    Source("wsc-txt", read_wsc_txt, "4-line sets: WSC273, PDP, DPR, WinoGender, WinoBias (-I seed=N)"),
    Source("winobias", read_winobias, "WinoBias brackets"),
)}
