/** The rows of an import that were skipped or failed, each with its problems by column. */
export function RowTable({
  id,
  title,
  rows,
}: {
  id: string;
  title: string;
  rows: { row: number; slug: string; errors: { column: string; message: string }[] }[];
}) {
  return (
    <section aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      <div className="console-scroll">
        <table className="console-table imports-errors">
          <thead>
            <tr>
              <th scope="col" className="num">
                Row
              </th>
              <th scope="col">Handle</th>
              <th scope="col">Column</th>
              <th scope="col">Problem</th>
            </tr>
          </thead>
          <tbody>
            {rows.flatMap((r) =>
              r.errors.map((e, i) => (
                <tr key={`${r.row}-${i}`}>
                  <th scope="row" className="num">
                    {r.row}
                  </th>
                  <td>{r.slug || "—"}</td>
                  <td>{e.column || "—"}</td>
                  <td>{e.message}</td>
                </tr>
              )),
            )}
          </tbody>
        </table>
      </div>
    </section>
  );
}
