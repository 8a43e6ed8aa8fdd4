// HostileStrings.swift - values that try to break out of HTML text and
// attributes, shared by the preview's tests and the playground's: each, if
// it were not escaped, would add an element with an id `pwned…` or run a
// script.
public enum HostileStrings {
    public static let title = "</title><script>document.title='pwned'</script>"
    public static let text = #"</div><script>document.body.innerHTML=''</script><b id="pwned1">x</b>"#
    public static let token = #"t" onclick="alert(1)" id="pwned0"#
    public static let value = #""><img id="pwned2" src=x onerror=alert(1)>"#
    public static let label = #"<i id="pwned3">boom</i>"#
    public static let primitive = #"<b id="pwned4">X</b>"#

    /// Every one of them.
    public static let all = [title, text, token, value, label, primitive]
}
