-- The orders a product was bought in, for the "bought together" recommendations.
CREATE INDEX `order_line_items_item_idx` ON `order_line_items` (`catalog_item_id`,`order_id`);
