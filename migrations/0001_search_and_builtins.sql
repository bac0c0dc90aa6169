-- Custom SQL migration file, put your code below! --
-- Full-text search over name, description, SKUs and brand. The FTS rowid is the product's numeric_id, and triggers
-- keep it in step with every insert, update and delete of a product, whichever code path writes it.
CREATE VIRTUAL TABLE product_search USING fts5(name, description, sku, brand, tokenize = 'unicode61 remove_diacritics 2');
--> statement-breakpoint
CREATE TRIGGER products_search_insert AFTER INSERT ON products BEGIN
  INSERT INTO product_search(rowid, name, description, sku, brand)
  VALUES (new.numeric_id, new.name, new.description, trim(coalesce(new.sku, '') || ' ' || new.variant_skus), coalesce(new.brand, ''));
END;
--> statement-breakpoint
CREATE TRIGGER products_search_update AFTER UPDATE OF name, description, sku, variant_skus, brand ON products BEGIN
  DELETE FROM product_search WHERE rowid = old.numeric_id;
  INSERT INTO product_search(rowid, name, description, sku, brand)
  VALUES (new.numeric_id, new.name, new.description, trim(coalesce(new.sku, '') || ' ' || new.variant_skus), coalesce(new.brand, ''));
END;
--> statement-breakpoint
CREATE TRIGGER products_search_delete AFTER DELETE ON products BEGIN
  DELETE FROM product_search WHERE rowid = old.numeric_id;
END;
--> statement-breakpoint
-- The built-in "All Products" collection (Wix's well-known id). It has no membership rows: it holds every product.
INSERT INTO collections (id, slug, name, description, visible, media, created_date, updated_date)
VALUES ('00000000-000000-000000-000000000001', 'all-products', 'All Products', 'Everything in the shop.', 1, NULL,
        '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z');
