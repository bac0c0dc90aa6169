CREATE TABLE `product_numbers` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL
);
