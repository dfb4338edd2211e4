"""Stage 4: free text.  `Recognizer` turns a text into a `Template` whose entity
occurrences are typed placeholders (`You are {PERSON_1}.`); `render` fills a template --
the source one, or its translation -- with the localized entity values; `notation` moves the
currency, date format, zone and example codes of a finished text between locales (an arm's tool
descriptions and knowledge base)."""

from jtau.text.recognize import Recognizer
from jtau.text.render import Renderer
from jtau.text.template import PLACEHOLDER, Entity, Template

__all__ = ["Recognizer", "Renderer", "Entity", "Template", "PLACEHOLDER"]
