-- Origins an add-on version's UI may show images from and link to (the config's per-environment
-- ui_origins, e.g. https://cdn.example.com). The host renders no other image or link URL, and a page
-- mounting add-ons builds its CSP img-src from these.
ALTER TABLE addon_versions ADD COLUMN ui_origins text[] NOT NULL DEFAULT '{}';
