// 200 nested modules: deeper than lumir reads
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
builtin.module {
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
