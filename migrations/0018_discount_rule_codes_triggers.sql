-- Custom SQL migration file, put your code below! --
-- discount_rule_codes holds the coupon codes each discount rule's trigger names, anywhere in it (a COUPON_CODE
-- trigger, alone or inside AND/OR), lower-cased as pricing matches them. These triggers keep it in step with every
-- insert and trigger change of a rule, whichever code path writes it; deleting a rule cascades (foreign key).
CREATE TRIGGER discount_rule_codes_insert AFTER INSERT ON discount_rules BEGIN
  INSERT OR IGNORE INTO discount_rule_codes (code_key, rule_id)
  SELECT lower(j.value), new.id FROM json_tree(new."trigger") j WHERE j.key = 'code' AND j.value IS NOT NULL;
END;
--> statement-breakpoint
CREATE TRIGGER discount_rule_codes_update AFTER UPDATE OF "trigger" ON discount_rules BEGIN
  DELETE FROM discount_rule_codes WHERE rule_id = old.id;
  INSERT OR IGNORE INTO discount_rule_codes (code_key, rule_id)
  SELECT lower(j.value), new.id FROM json_tree(new."trigger") j WHERE j.key = 'code' AND j.value IS NOT NULL;
END;
--> statement-breakpoint
-- The rules already in the store.
INSERT OR IGNORE INTO discount_rule_codes (code_key, rule_id)
SELECT lower(j.value), r.id FROM discount_rules r, json_tree(r."trigger") j WHERE j.key = 'code' AND j.value IS NOT NULL;
