//! The runtime CLI's commands with their arguments, in one list: what `help` prints and what a
//! malformed line is told it should look like.

/// Every command, `name arguments...`, in the order `help` lists them.
pub const COMMANDS: &[&str] = &[
    "table_add <table> <action> <key>... => <arg>... [<priority>]",
    "table_modify <table> <action> <entry handle> <arg>...",
    "table_delete <table> <entry handle>",
    "table_clear <table>",
    "table_set_default <table> <action> <arg>...",
    "table_num_entries <table>",
    "table_dump <table>",
    "show_tables",
    "act_prof_create_member <action profile> <action> <arg>...",
    "act_prof_modify_member <action profile> <action> <member handle> <arg>...",
    "act_prof_delete_member <action profile> <member handle>",
    "act_prof_create_group <action profile>",
    "act_prof_delete_group <action profile> <group handle>",
    "act_prof_add_member_to_group <action profile> <member handle> <group handle>",
    "act_prof_remove_member_from_group <action profile> <member handle> <group handle>",
    "table_indirect_add <table> <key>... => <member handle> [<priority>]",
    "table_indirect_add_with_group <table> <key>... => <group handle> [<priority>]",
    "table_indirect_delete <table> <entry handle>",
    "table_indirect_set_default <table> <member handle>",
    "mc_mgrp_create <group>",
    "mc_mgrp_destroy <group>",
    "mc_node_create <rid> <port>... [| <lag>...]",
    "mc_node_update <node handle> <port>...",
    "mc_node_associate <group> <node handle>",
    "mc_node_dissociate <group> <node handle>",
    "mc_node_destroy <node handle>",
    "mirroring_add <session> <port>",
    "mirroring_add_mc <session> <group>",
    "mirroring_delete <session>",
    "mirroring_get <session>",
    "register_read <register> <index> [[==] <expected value>]",
    "register_write <register> <index> <value>",
    "register_reset <register>",
    "counter_read <counter> <index>",
    "counter_write <counter> <index> <packets> <bytes>",
    "counter_reset <counter>",
    "meter_set_rates <meter> <index> <rate>:<burst> <rate>:<burst>",
    "meter_array_set_rates <meter> <rate>:<burst> <rate>:<burst>",
    "meter_get_rates <meter> <index>",
    "pvs_add <value set> <value>",
    "help",
];

/// The usage line of command `name` (`name` alone for a name not in the list).
pub fn of(name: &str) -> &'static str {
    COMMANDS.iter().find(|c| c.split(' ').next() == Some(name)).copied().unwrap_or("")
}

/// What `help` prints: every command, one per line.
pub fn help() -> String {
    COMMANDS.join("\n")
}

#[cfg(test)]
mod tests {
    #[test]
    fn each_command_is_listed_once_and_found_by_name() {
        let mut names: Vec<&str> = super::COMMANDS.iter().map(|c| c.split(' ').next().unwrap()).collect();
        assert_eq!(super::of("table_delete"), "table_delete <table> <entry handle>");
        assert_eq!(super::of("show_tables"), "show_tables");
        assert_eq!(super::of("no_such_command"), "");
        let n = names.len();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), n);
    }
}
