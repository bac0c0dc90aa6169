CREATE TABLE `collection_products` (
	`collection_id` text NOT NULL,
	`product_id` text NOT NULL,
	`added_date` text NOT NULL,
	PRIMARY KEY(`collection_id`, `product_id`),
	FOREIGN KEY (`collection_id`) REFERENCES `collections`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`product_id`) REFERENCES `products`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `collection_products_product_idx` ON `collection_products` (`product_id`);--> statement-breakpoint
CREATE TABLE `collections` (
	`id` text PRIMARY KEY NOT NULL,
	`slug` text NOT NULL,
	`name` text NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`visible` integer DEFAULT true NOT NULL,
	`media` text,
	`created_date` text NOT NULL,
	`updated_date` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `collections_slug_unique` ON `collections` (`slug`);--> statement-breakpoint
CREATE TABLE `products` (
	`id` text PRIMARY KEY NOT NULL,
	`numeric_id` integer NOT NULL,
	`slug` text NOT NULL,
	`name` text NOT NULL,
	`product_type` text DEFAULT 'physical' NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`rich_description` text,
	`sku` text,
	`visible` integer DEFAULT true NOT NULL,
	`price` integer NOT NULL,
	`cost` integer,
	`weight` real,
	`discount_type` text DEFAULT 'NONE' NOT NULL,
	`discount_value` real DEFAULT 0 NOT NULL,
	`price_per_unit_data` text,
	`brand` text,
	`ribbon` text,
	`manage_variants` integer DEFAULT false NOT NULL,
	`track_inventory` integer DEFAULT false NOT NULL,
	`product_options` text DEFAULT '[]' NOT NULL,
	`media` text DEFAULT '[]' NOT NULL,
	`info_sections` text DEFAULT '[]' NOT NULL,
	`seo_data` text,
	`min_price` integer DEFAULT 0 NOT NULL,
	`max_price` integer DEFAULT 0 NOT NULL,
	`in_stock` integer DEFAULT true NOT NULL,
	`quantity` integer,
	`variant_skus` text DEFAULT '' NOT NULL,
	`created_date` text NOT NULL,
	`updated_date` text NOT NULL,
	`last_updated` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `products_slug_unique` ON `products` (`slug`);--> statement-breakpoint
CREATE UNIQUE INDEX `products_numeric_id_unique` ON `products` (`numeric_id`);--> statement-breakpoint
CREATE INDEX `products_created_idx` ON `products` (`created_date`);--> statement-breakpoint
CREATE INDEX `products_min_price_idx` ON `products` (`min_price`);--> statement-breakpoint
CREATE INDEX `products_name_idx` ON `products` (`name`);--> statement-breakpoint
CREATE TABLE `variants` (
	`product_id` text NOT NULL,
	`id` text NOT NULL,
	`choices` text NOT NULL,
	`position` integer DEFAULT 0 NOT NULL,
	`price` integer,
	`cost` integer,
	`weight` real,
	`sku` text,
	`visible` integer DEFAULT true NOT NULL,
	`quantity` integer,
	`in_stock` integer DEFAULT true NOT NULL,
	PRIMARY KEY(`product_id`, `id`),
	FOREIGN KEY (`product_id`) REFERENCES `products`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `variants_sku_idx` ON `variants` (`sku`);--> statement-breakpoint
CREATE TABLE `outbox` (
	`id` text PRIMARY KEY NOT NULL,
	`type` text NOT NULL,
	`entity_id` text NOT NULL,
	`event_time` text NOT NULL,
	`actor_type` text NOT NULL,
	`actor_id` text,
	`data` text NOT NULL,
	`flushed_at` text,
	`attempts` integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE INDEX `outbox_unflushed_idx` ON `outbox` (`flushed_at`,`event_time`);--> statement-breakpoint
CREATE TABLE `api_keys` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`key_hash` text NOT NULL,
	`role` text NOT NULL,
	`created_date` text NOT NULL,
	`revoked_date` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `api_keys_key_hash_unique` ON `api_keys` (`key_hash`);--> statement-breakpoint
CREATE TABLE `batch_assertions` (
	`ok` integer NOT NULL,
	CONSTRAINT "batch_assertions_ok" CHECK("batch_assertions"."ok" = 1)
);
--> statement-breakpoint
CREATE TABLE `settings` (
	`key` text PRIMARY KEY NOT NULL,
	`value` text NOT NULL,
	`updated_date` text NOT NULL
);
