"""The filler words of the languages memories are written in: the words that carry a
sentence's grammar or the asking of a question, not its subject. Search leaves them out
of the words it ranks by (search/query.py); the duplicates check does not take one for
what a number counts (integrity/duplicates/slot_compare.py).

Each language's list holds only words that are filler in every sense a memory uses: a
word that is also a subject in technical English (German ``bin``, ``man``, ``hat``, ``war``:
a folder, manual pages, Red Hat, a Java archive) is left out of it."""

from __future__ import annotations

_ENGLISH_TEXT = """
a about above after again against all also am an and any are as at be because been before
being below between both but by can cannot could did do does doing done down during each
else ever every few for from further get gets getting got had has have having he her here
hers how however i if in into is it its itself just let like likes may me might more most
must my myself need needs no nor not now of off on once only or other our ours out over own
please possible really same shall she should so some such tell than that the their theirs
them then there these they thing things this those through to too under until up upon us
very want wants was way ways we were what whatever when where whether which while who whom
whose why will with within without would yes yet you your yours
"""
ENGLISH = frozenset(_ENGLISH_TEXT.split())
"""Words that carry the asking, not the subject ("can", "should", "like", question words,
and the particles and negations "up", "down", "out", "off", "no", "not")."""

_GERMAN_TEXT = """
der die das den dem des ein eine einer eines einem einen kein keine keiner keinen keinem
und oder aber sondern denn doch ist sind waren wird werden wurde wurden worden sein seine
seinen seiner haben hatte hatten habe hast gibt nicht nichts noch nur schon auch sehr mehr
zu zum zur mit von vom bei beim für fuer auf aus im ins am an als wie wenn dann dass da dort
hier wo was wer wen wem wann warum weshalb welche welcher welches ob um über ueber unter
nach vor bis seit durch ohne gegen zwischen während waehrend weil damit dabei dafür dafuer
dazu davon darin darauf daher also so sich ich du er sie es wir ihr ihre ihren ihrem ihn
ihm uns euch mich mir dich dir mein meine dein deine unser unsere kann können koennen
könnte muss müssen muessen musste soll sollen sollte darf dürfen duerfen will wollen möchte
jetzt mal bitte etwa ja nein dies diese dieser dieses diesem diesen jede jeder jedes
alle allen alles viel viele
"""
GERMAN = frozenset(_GERMAN_TEXT.split())
"""The German ones: articles, conjunctions, auxiliary and modal verbs, pronouns,
prepositions, question words and particles."""

FILLER = ENGLISH | GERMAN
"""Every language's filler words, as search and the checks leave them out."""
