CREATE TABLE `discount_rule_codes` (
	`code_key` text NOT NULL,
	`rule_id` text NOT NULL,
	PRIMARY KEY(`code_key`, `rule_id`),
	FOREIGN KEY (`rule_id`) REFERENCES `discount_rules`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `discount_rule_codes_rule_idx` ON `discount_rule_codes` (`rule_id`);--> statement-breakpoint
CREATE INDEX `discount_rules_live_idx` ON `discount_rules` (`active`,(CASE WHEN "end_date" IS NULL THEN '~' ELSE "end_date" END));