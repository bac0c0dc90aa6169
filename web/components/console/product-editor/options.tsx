import { describedBy, FieldError, fieldId } from "#web/components/ui/form";
import { type ChoiceValues, choiceName, type OptionValues, optionName } from "../product-form";
import { EditorInput, EditorSelect, useEditorState } from "./field";

const SHOWN_AS = [
  ["drop_down", "Drop-down list"],
  ["color", "Colour swatches"],
] as const;

/**
 * The editor's "Options" fieldset: each option's name, how it is shown and its choices (a colour each for swatches).
 * With JavaScript an option can be removed at once; without, "Update variants" sends the form to rebuild the grid.
 */
export function OptionFields({
  options,
  hydrated,
  onOption,
  onChoice,
  onRemove,
}: {
  options: OptionValues[];
  hydrated: boolean;
  onOption: (i: number, patch: Partial<OptionValues>) => void;
  onChoice: (i: number, j: number, patch: Partial<ChoiceValues>) => void;
  onRemove: (i: number) => void;
}) {
  const { err, canWrite } = useEditorState();
  return (
    <fieldset>
      <legend>Options</legend>
      <p className="console-muted">Like Size or Colour. Each combination of choices is a variant. To remove a choice or an option, empty its name.</p>
      {options.map((o, i) => (
        <div key={i} className="editor-option" role="group" aria-label={o.name ? `Option ${o.name}` : `New option ${i + 1}`}>
          <div className="console-row">
            <EditorInput
              name={optionName(i, "name")}
              label="Option name"
              value={o.name}
              onChange={(e) => onOption(i, { name: e.target.value })}
              maxLength={50}
            />
            <EditorSelect
              name={optionName(i, "optionType")}
              label="Shown as"
              options={SHOWN_AS}
              value={o.type}
              onChange={(e) => onOption(i, { type: e.target.value as OptionValues["type"] })}
            />
            {hydrated && o.name && canWrite && (
              <button type="button" className="console-button" onClick={() => onRemove(i)}>
                Remove option {o.name}
              </button>
            )}
          </div>
          <ul className="editor-choices">
            {o.choices.map((c, j) => {
              const [name, color] = [choiceName(i, j, "description"), choiceName(i, j, "value")];
              const error = err(name) ?? err(color);
              return (
                <li key={j}>
                  <label htmlFor={fieldId(name)} className="visually-hidden">
                    {`${o.name || "Option"} choice ${j + 1}`}
                  </label>
                  <input
                    id={fieldId(name)}
                    name={name}
                    value={c.name}
                    placeholder={j === o.choices.length - 1 ? "Add a choice" : undefined}
                    onChange={(e) => onChoice(i, j, { name: e.target.value })}
                    maxLength={50}
                    disabled={!canWrite}
                    {...describedBy(fieldId(name), false, !!error)}
                  />
                  {o.type === "color" && (
                    <>
                      <label htmlFor={fieldId(color)} className="visually-hidden">
                        {`Colour of ${c.name || `choice ${j + 1}`}`}
                      </label>
                      <input
                        type="color"
                        id={fieldId(color)}
                        name={color}
                        value={/^#[0-9a-f]{6}$/i.test(c.color) ? c.color : "#888888"}
                        onChange={(e) => onChoice(i, j, { color: e.target.value })}
                        disabled={!canWrite}
                      />
                    </>
                  )}
                  <FieldError id={`${fieldId(name)}-error`} message={error} />
                </li>
              );
            })}
          </ul>
        </div>
      ))}
      {!hydrated && canWrite && (
        <button type="submit" name="intent" value="preview" className="console-button">
          Update variants
        </button>
      )}
    </fieldset>
  );
}
