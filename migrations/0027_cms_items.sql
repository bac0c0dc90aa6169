CREATE TABLE `cms_items` (
	`id` text PRIMARY KEY NOT NULL,
	`collection_id` text NOT NULL,
	`slug` text NOT NULL,
	`title` text NOT NULL,
	`data` text NOT NULL,
	`created_date` text NOT NULL,
	`updated_date` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `cms_items_slug_idx` ON `cms_items` (`collection_id`,`slug`);--> statement-breakpoint
CREATE INDEX `cms_items_updated_idx` ON `cms_items` (`collection_id`,`updated_date`);
