CREATE TABLE `payment_events` (
	`id` text PRIMARY KEY NOT NULL,
	`provider` text NOT NULL,
	`type` text NOT NULL,
	`status` text NOT NULL,
	`order_id` text,
	`object_id` text,
	`livemode` text NOT NULL,
	`created_date` text NOT NULL,
	`received_date` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `payment_events_received_idx` ON `payment_events` (`provider`,`received_date`);--> statement-breakpoint
CREATE INDEX `payment_events_order_idx` ON `payment_events` (`order_id`);