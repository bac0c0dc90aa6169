import { FieldError } from "#web/components/ui/form";
import type { ChoiceValues, OptionValues } from "../product-form";
import { useEditorState } from "./field";

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
  const invalid = (id: string) => ({
    "aria-invalid": err(id) ? true : undefined,
    "aria-describedby": err(id) ? `${id}-error` : undefined,
  });
  return (
    <fieldset>
      <legend>Options</legend>
      <p className="console-muted">Like Size or Colour. Each combination of choices is a variant. To remove a choice or an option, empty its name.</p>
      {options.map((o, i) => (
        <div key={i} className="editor-option" role="group" aria-label={o.name ? `Option ${o.name}` : `New option ${i + 1}`}>
          <div className="console-row">
            <div className="console-field">
              <label htmlFor={`option-${i}-name`}>Option name</label>
              <input
                id={`option-${i}-name`}
                name={`option.${i}.name`}
                value={o.name}
                onChange={(e) => onOption(i, { name: e.target.value })}
                maxLength={50}
                disabled={!canWrite}
                {...invalid(`option-${i}-name`)}
              />
              <FieldError id={`option-${i}-name-error`} message={err(`option-${i}-name`)} />
            </div>
            <div className="console-field">
              <label htmlFor={`option-${i}-type`}>Shown as</label>
              <select
                id={`option-${i}-type`}
                name={`option.${i}.type`}
                value={o.type}
                onChange={(e) => onOption(i, { type: e.target.value as OptionValues["type"] })}
                disabled={!canWrite}
              >
                <option value="drop_down">Drop-down list</option>
                <option value="color">Colour swatches</option>
              </select>
            </div>
            {hydrated && o.name && canWrite && (
              <button type="button" className="console-button" onClick={() => onRemove(i)}>
                Remove option {o.name}
              </button>
            )}
          </div>
          <ul className="editor-choices">
            {o.choices.map((c, j) => {
              const id = `option-${i}-choice-${j}`;
              return (
                <li key={j}>
                  <label htmlFor={`${id}-name`} className="visually-hidden">
                    {`${o.name || "Option"} choice ${j + 1}`}
                  </label>
                  <input
                    id={`${id}-name`}
                    name={`option.${i}.choice.${j}.name`}
                    value={c.name}
                    placeholder={j === o.choices.length - 1 ? "Add a choice" : undefined}
                    onChange={(e) => onChoice(i, j, { name: e.target.value })}
                    maxLength={50}
                    disabled={!canWrite}
                    {...invalid(`${id}-name`)}
                  />
                  {o.type === "color" && (
                    <>
                      <label htmlFor={`${id}-color`} className="visually-hidden">
                        {`Colour of ${c.name || `choice ${j + 1}`}`}
                      </label>
                      <input
                        type="color"
                        id={`${id}-color`}
                        name={`option.${i}.choice.${j}.color`}
                        value={/^#[0-9a-f]{6}$/i.test(c.color) ? c.color : "#888888"}
                        onChange={(e) => onChoice(i, j, { color: e.target.value })}
                        disabled={!canWrite}
                      />
                    </>
                  )}
                  <FieldError id={`${id}-name-error`} message={err(`${id}-name`) ?? err(`${id}-color`)} />
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
