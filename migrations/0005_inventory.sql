CREATE TABLE `inventory_changes` (
	`id` text PRIMARY KEY NOT NULL,
	`product_id` text NOT NULL,
	`variant_id` text NOT NULL,
	`delta` integer NOT NULL,
	`quantity_after` integer,
	`in_stock_after` integer NOT NULL,
	`cause` text NOT NULL,
	`reason` text,
	`order_id` text,
	`actor_type` text NOT NULL,
	`actor_id` text,
	`created_date` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `inventory_changes_product_idx` ON `inventory_changes` (`product_id`,`created_date`);--> statement-breakpoint
CREATE INDEX `inventory_changes_order_idx` ON `inventory_changes` (`order_id`);--> statement-breakpoint
CREATE TABLE `preorder_settings` (
	`product_id` text PRIMARY KEY NOT NULL,
	`enabled` integer DEFAULT false NOT NULL,
	`message` text,
	`preorder_limit` integer,
	`updated_date` text NOT NULL,
	FOREIGN KEY (`product_id`) REFERENCES `products`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `stock_snapshots` (
	`change_id` text NOT NULL,
	`product_id` text NOT NULL,
	`variant_id` text NOT NULL,
	`quantity` integer,
	`in_stock` integer NOT NULL,
	`tracked` integer NOT NULL,
	`preorder_enabled` integer NOT NULL,
	`preorder_limit` integer,
	`preorder_message` text,
	PRIMARY KEY(`change_id`, `product_id`, `variant_id`)
);
