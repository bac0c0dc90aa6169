CREATE TABLE `order_refunds` (
	`id` text PRIMARY KEY NOT NULL,
	`order_id` text NOT NULL,
	`amount` integer NOT NULL,
	`currency` text NOT NULL,
	`status` text NOT NULL,
	`line_items` text NOT NULL,
	`restock` integer DEFAULT 0 NOT NULL,
	`restocked_line_items` text,
	`provider` text NOT NULL,
	`provider_refund_id` text,
	`failure_reason` text,
	`actor_type` text NOT NULL,
	`actor_id` text,
	`created_date` text NOT NULL,
	`updated_date` text NOT NULL,
	FOREIGN KEY (`order_id`) REFERENCES `orders`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `order_refunds_order_idx` ON `order_refunds` (`order_id`,`created_date`);--> statement-breakpoint
CREATE UNIQUE INDEX `order_refunds_provider_unique` ON `order_refunds` (`provider`,`provider_refund_id`) WHERE provider_refund_id IS NOT NULL;--> statement-breakpoint
ALTER TABLE `order_line_items` ADD `refunded_quantity` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `order_line_items` ADD `restocked_quantity` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
INSERT INTO `order_refunds` (`id`, `order_id`, `amount`, `currency`, `status`, `line_items`, `restock`, `provider`, `provider_refund_id`, `actor_type`, `actor_id`, `created_date`, `updated_date`)
SELECT `id`, `order_id`, `amount`, `currency`, 'SUCCEEDED', '[]', 0, `provider`, NULL, 'APP', `provider`, `created_date`, `created_date` FROM `transactions` WHERE `status` = 'REFUNDED';
