"""placeholder"""
def main(args, device, console, err):
    return 1
