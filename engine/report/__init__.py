"""Reports of a diagnosis: the JSON contract and the text and Markdown outputs (`output`),
the model a page is built from (`model`), its renderings (`render_text`, `render_markdown`,
`render_html`, `display`), charts (`chart`, `chart_data`) and the review summaries
(`review_text`); `spec` and `spec_types` compile a pack's `report:` section (what reports
chart, what a what-if drops).

Nothing is imported here, so the pack loader can import `spec` without the renderers.
"""
