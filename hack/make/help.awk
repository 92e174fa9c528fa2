# Prints `make help`: the targets that carry a "## description", by the "##@ Section" they
# stand under, the sections in the order SECTIONS gives ("|" between them; a section it does
# not name comes after them, in the order of the makefiles), each description wrapped so that
# every line fits WIDTH columns.
BEGIN { FS = ":.*##" }
/^##@/ {
	section = substr($0, 5)
	if (!(section in seen)) { seen[section] = 1; read[++sections] = section }
	next
}
/^[a-zA-Z_0-9-]+:.*##/ {
	text[section] = text[section] entry($1, $2)
}
function entry(target, description,    words, count, i, line, out, indent) {
	indent = sprintf("%22s", "")
	count = split(description, words, " ")
	line = sprintf("  \033[36m%-19s\033[0m", target)
	out = ""
	# The colour codes take no columns: count the visible width apart.
	visible = 21
	for (i = 1; i <= count; i++) {
		if (visible + 1 + length(words[i]) > WIDTH && visible > 22) {
			out = out line "\n"
			line = indent words[i]
			visible = 22 + length(words[i])
		} else {
			line = line " " words[i]
			visible += 1 + length(words[i])
		}
	}
	return out line "\n"
}
END {
	printf "\nUsage:\n  make \033[36m<target>\033[0m\n"
	n = split(SECTIONS, order, "|")
	for (i = 1; i <= n; i++) { shown[order[i]] = 1; show(order[i]) }
	for (i = 1; i <= sections; i++) if (!(read[i] in shown)) show(read[i])
}
function show(name) {
	if (text[name] == "") return
	printf "\n\033[1m%s\033[0m\n%s", name, text[name]
}
