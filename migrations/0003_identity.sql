CREATE TABLE `emails` (
	`id` text PRIMARY KEY NOT NULL,
	`to` text NOT NULL,
	`template` text NOT NULL,
	`subject` text NOT NULL,
	`html` text NOT NULL,
	`text` text NOT NULL,
	`status` text NOT NULL,
	`error` text,
	`created_date` text NOT NULL,
	`sent_date` text
);
--> statement-breakpoint
CREATE INDEX `emails_to_idx` ON `emails` (`to`,`created_date`);--> statement-breakpoint
CREATE TABLE `identities` (
	`id` text PRIMARY KEY NOT NULL,
	`email` text NOT NULL,
	`password_hash` text,
	`status` text NOT NULL,
	`pending_reasons` text DEFAULT '[]' NOT NULL,
	`role` text DEFAULT 'MEMBER' NOT NULL,
	`email_verified` integer DEFAULT false NOT NULL,
	`profile` text DEFAULT '{}' NOT NULL,
	`password_reset_required` integer DEFAULT false NOT NULL,
	`created_date` text NOT NULL,
	`updated_date` text NOT NULL,
	`last_login_date` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `identities_email_unique` ON `identities` (`email`);--> statement-breakpoint
CREATE INDEX `identities_role_idx` ON `identities` (`role`);--> statement-breakpoint
CREATE TABLE `oauth_clients` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`redirect_uris` text DEFAULT '[]' NOT NULL,
	`allow_any_redirect` integer DEFAULT false NOT NULL,
	`created_date` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `one_time_tokens` (
	`token_hash` text PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`identity_id` text,
	`data` text DEFAULT '{}' NOT NULL,
	`expires_at` text NOT NULL,
	`created_date` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `one_time_tokens_identity_idx` ON `one_time_tokens` (`identity_id`,`kind`);--> statement-breakpoint
CREATE TABLE `rate_limits` (
	`key` text PRIMARY KEY NOT NULL,
	`window_start` integer NOT NULL,
	`count` integer NOT NULL
);
