extern void log_msg(in string text);
extern Logger {
    Logger(string prefix);
    void put(inout string s);
}
