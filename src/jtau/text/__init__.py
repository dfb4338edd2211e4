"""Stage 4: free text -> templates with typed placeholders (`You are {PERSON_1}.`) -> rendered text.

- segment.py: free text split into the segments that are translated, Markdown-aware
- recognize.py: `Recognizer`: entity occurrences in a text replaced by typed placeholders
- template.py: `Template`: a text with typed placeholders, and the entities behind them
- render.py: `Renderer`: a template (the source one or its translation) filled with the localized entities
- fields.py: the free-text fields of the tasks and the policy, collected as templates and rendered back
- graph.py: Graphviz workflow diagrams (telecom's `workflows/*.dot`), only their labels translated
- notation.py: currency, date format, zone and example codes of a finished text moved between locales
"""

from jtau.text.recognize import Recognizer
from jtau.text.render import Renderer
from jtau.text.template import PLACEHOLDER, Entity, Template

__all__ = ["Recognizer", "Renderer", "Entity", "Template", "PLACEHOLDER"]
