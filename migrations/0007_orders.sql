CREATE TABLE `order_activities` (
	`id` text PRIMARY KEY NOT NULL,
	`order_id` text NOT NULL,
	`type` text NOT NULL,
	`details` text,
	`actor_type` text NOT NULL,
	`actor_id` text,
	`created_date` text NOT NULL,
	FOREIGN KEY (`order_id`) REFERENCES `orders`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `order_activities_order_idx` ON `order_activities` (`order_id`,`created_date`);--> statement-breakpoint
CREATE TABLE `order_fulfillments` (
	`id` text PRIMARY KEY NOT NULL,
	`order_id` text NOT NULL,
	`line_items` text NOT NULL,
	`tracking_info` text,
	`created_date` text NOT NULL,
	FOREIGN KEY (`order_id`) REFERENCES `orders`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `order_fulfillments_order_idx` ON `order_fulfillments` (`order_id`);--> statement-breakpoint
CREATE TABLE `order_line_items` (
	`id` text PRIMARY KEY NOT NULL,
	`order_id` text NOT NULL,
	`position` integer NOT NULL,
	`catalog_item_id` text,
	`variant_id` text,
	`name` text NOT NULL,
	`quantity` integer NOT NULL,
	`fulfilled_quantity` integer DEFAULT 0 NOT NULL,
	`price` integer NOT NULL,
	`details` text NOT NULL,
	FOREIGN KEY (`order_id`) REFERENCES `orders`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `order_line_items_order_idx` ON `order_line_items` (`order_id`,`position`);--> statement-breakpoint
CREATE TABLE `order_numbers` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL
);
--> statement-breakpoint
CREATE TABLE `orders` (
	`id` text PRIMARY KEY NOT NULL,
	`number` integer NOT NULL,
	`checkout_id` text NOT NULL,
	`cart_id` text NOT NULL,
	`owner_kind` text NOT NULL,
	`owner_id` text NOT NULL,
	`buyer_email` text,
	`status` text NOT NULL,
	`payment_status` text NOT NULL,
	`fulfillment_status` text DEFAULT 'NOT_FULFILLED' NOT NULL,
	`currency` text NOT NULL,
	`subtotal` integer NOT NULL,
	`total` integer NOT NULL,
	`channel_type` text DEFAULT 'WEB' NOT NULL,
	`details` text NOT NULL,
	`purchased_date` text NOT NULL,
	`created_date` text NOT NULL,
	`updated_date` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `orders_number_unique` ON `orders` (`number`);--> statement-breakpoint
CREATE UNIQUE INDEX `orders_checkout_unique` ON `orders` (`checkout_id`);--> statement-breakpoint
CREATE INDEX `orders_owner_idx` ON `orders` (`owner_kind`,`owner_id`,`purchased_date`);--> statement-breakpoint
CREATE INDEX `orders_purchased_idx` ON `orders` (`purchased_date`);--> statement-breakpoint
CREATE TABLE `transactions` (
	`id` text PRIMARY KEY NOT NULL,
	`order_id` text NOT NULL,
	`amount` integer NOT NULL,
	`currency` text NOT NULL,
	`status` text NOT NULL,
	`provider` text NOT NULL,
	`provider_transaction_id` text,
	`created_date` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `transactions_order_idx` ON `transactions` (`order_id`);