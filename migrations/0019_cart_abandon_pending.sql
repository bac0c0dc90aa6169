ALTER TABLE `carts` ADD `abandon_checked` text;--> statement-breakpoint
CREATE INDEX `carts_abandon_pending_idx` ON `carts` (`last_activity`) WHERE status = 'ACTIVE' AND abandon_checked IS NOT last_activity;--> statement-breakpoint
-- The carts the sweep already reported for their current idle period are decided (the rest it looks at once more).
UPDATE `carts` SET `abandon_checked` = `last_activity` WHERE EXISTS (SELECT 1 FROM `cart_abandonment_marks` m WHERE m.cart_id = `carts`.`id` AND m.idle_since = `carts`.`last_activity`);
